package io.brook.server.network;

import io.brook.server.time.Timer;
import io.netty.channel.EventLoop;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A connection's quota mute (KIP-219): after a throttled answer the connection reads nothing
 * more for the throttle time; a longer throttle already running stays. Requests already read
 * are answered meanwhile, and the decoder keeps what arrives. When the mute ends, the connection
 * is told to read on.
 *
 * <p>What the client is told: Kafka reads one request of a connection at a time, so each
 * throttle it answers starts after the previous one ended. Brook may have read several requests
 * of a connection before the first is answered (a producer's five in flight); each is charged in
 * turn, so each computed throttle includes the ones before it. An answer therefore tells only the
 * part of its throttle beyond the mute already running ({@link #mute}'s result is taken off it),
 * as Kafka's answers would; the connection stays muted for the whole.
 *
 * <p>Time: on the broker's {@link Timer} when one is given (so tests move it by hand), else on
 * the event loop's own scheduling.
 *
 * <p>Threading: the connection's event loop only.
 */
final class ThrottleMute {

    private final Runnable onUnmute;
    /** The time line throttles are measured on (null: the event loop's own scheduling). */
    private Timer timer;
    private boolean muted;
    /** When the current throttle ends, on {@link #timer}'s time line. */
    private long mutedUntilMs;

    /** @param onUnmute called on the event loop when a mute ends */
    ThrottleMute(Runnable onUnmute) {
        this.onUnmute = onUnmute;
    }

    /** Measures throttles on {@code t}; call before the channel is active. */
    void timer(Timer t) {
        this.timer = t;
    }

    /** True while the connection must not read. */
    boolean muted() {
        return muted;
    }

    /**
     * Reads nothing more for {@code ms}, on {@code loop}; a longer mute already running stays.
     * Returns how much of {@code ms} the mute already running covers: the part of this throttle
     * the client's earlier answers already made it wait for.
     */
    int mute(int ms, EventLoop loop) {
        Timer t = timer;
        long now = nowMs(t);
        int covered = muted ? (int) Math.max(0, Math.min(ms, mutedUntilMs - now)) : 0;
        if (muted && mutedUntilMs >= now + ms) {
            return covered;
        }
        muted = true;
        mutedUntilMs = now + ms;
        if (t != null) {
            t.scheduleOn(loop, ms, this::unmuteIfDue);
            return covered;
        }
        try {
            loop.schedule(this::unmuteIfDue, ms, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // the broker is shut down and the connection closed: nothing is left to read
        }
        return covered;
    }

    private void unmuteIfDue() {
        if (muted && nowMs(timer) >= mutedUntilMs) {
            muted = false;
            onUnmute.run();
        }
    }

    private static long nowMs(Timer t) {
        return t == null ? TimeUnit.NANOSECONDS.toMillis(System.nanoTime()) : t.nowMs();
    }
}
