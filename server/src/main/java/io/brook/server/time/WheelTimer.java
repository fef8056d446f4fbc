package io.brook.server.time;

import io.netty.util.HashedWheelTimer;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * The production {@link Timer}: Netty's hashed wheel on one daemon thread ({@code brook-timer},
 * started with the first task), on the monotonic clock. A tick of {@value #TICK_MS} ms is fine
 * enough for {@code max_wait_ms} and idle enough to cost nothing; a task runs up to one tick late.
 */
public final class WheelTimer implements Timer {

    private static final long TICK_MS = 10;
    private static final int WHEEL_SIZE = 512;

    private final HashedWheelTimer wheel = new HashedWheelTimer(new DefaultThreadFactory("brook-timer", true),
            TICK_MS, TimeUnit.MILLISECONDS, WHEEL_SIZE);

    @Override
    public long nowMs() {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime());
    }

    @Override
    public Scheduled schedule(long delayMs, Runnable task) {
        return wheel.newTimeout(t -> task.run(), Math.max(0, delayMs), TimeUnit.MILLISECONDS)::cancel;
    }

    @Override
    public void close() {
        wheel.stop();
    }
}
