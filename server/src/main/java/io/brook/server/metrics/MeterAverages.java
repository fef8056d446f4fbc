package io.brook.server.metrics;

import com.codahale.metrics.Clock;
import com.codahale.metrics.EWMA;
import com.codahale.metrics.MovingAverages;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * A meter's one-, five- and fifteen-minute rates, as Dropwizard's {@code ExponentialMovingAverages}
 * computes them (the same values, tick for tick: three exponentially weighted moving averages
 * ticked every five seconds), with one counter where that class has three: a mark adds to one
 * striped {@link LongAdder}, and each tick hands what it counted to the three averages. Marking a
 * meter (handlers mark several per produced or fetched partition) costs one atomic addition less
 * twice over.
 */
final class MeterAverages implements MovingAverages {

    private static final long TICK_INTERVAL = TimeUnit.SECONDS.toNanos(5);
    /** Ticks after which every average has decayed to nothing (Dropwizard's rule: the 15-minute one below 1e-4). */
    private static final int MAX_TICKS = maxTicks();

    private final EWMA m1 = EWMA.oneMinuteEWMA();
    private final EWMA m5 = EWMA.fiveMinuteEWMA();
    private final EWMA m15 = EWMA.fifteenMinuteEWMA();
    private final LongAdder uncounted = new LongAdder();
    private final AtomicLong lastTick;
    private final Clock clock;

    MeterAverages() {
        this(Clock.defaultClock());
    }

    MeterAverages(Clock clock) {
        this.clock = clock;
        this.lastTick = new AtomicLong(clock.getTick());
    }

    @Override
    public void update(long n) {
        uncounted.add(n);
    }

    @Override
    public void tickIfNecessary() {
        tickIfNecessary(clock.getTick());
    }

    /** Ticks the averages for every interval that ended by {@code now}, the clock's tick read by the caller. */
    void tickIfNecessary(long now) {
        long old = lastTick.get();
        long age = now - old;
        if (age > TICK_INTERVAL) {
            long intervalStart = now - age % TICK_INTERVAL;
            if (lastTick.compareAndSet(old, intervalStart)) {
                long ticks = age / TICK_INTERVAL;
                if (ticks >= MAX_TICKS) {
                    uncounted.reset();
                    m1.reset();
                    m5.reset();
                    m15.reset();
                } else {
                    long n = uncounted.sumThenReset();
                    m1.update(n);
                    m5.update(n);
                    m15.update(n);
                    for (long i = 0; i < ticks; i++) {
                        m1.tick();
                        m5.tick();
                        m15.tick();
                    }
                }
            }
        }
    }

    @Override
    public double getM1Rate() {
        return m1.getRate(TimeUnit.SECONDS);
    }

    @Override
    public double getM5Rate() {
        return m5.getRate(TimeUnit.SECONDS);
    }

    @Override
    public double getM15Rate() {
        return m15.getRate(TimeUnit.SECONDS);
    }

    private static int maxTicks() {
        int ticks = 1;
        EWMA probe = EWMA.fifteenMinuteEWMA();
        probe.update(Long.MAX_VALUE);
        do {
            probe.tick();
            ticks++;
        } while (probe.getRate(TimeUnit.SECONDS) > 1e-4);
        return ticks;
    }
}
