package io.brook.testkit;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock that moves only when a test says so, for time-outs, retention and expiry on virtual
 * time. Thread-safe: the code under test may read it from any thread while the test advances it.
 */
public final class MutableClock extends Clock {
    private final AtomicLong millis;

    public MutableClock(long startMillis) {
        this.millis = new AtomicLong(startMillis);
    }

    /** Moves the clock forward by {@code ms}. */
    public void advance(long ms) {
        millis.addAndGet(ms);
    }

    /** Sets the clock to {@code ms} since the epoch. */
    public void set(long ms) {
        millis.set(ms);
    }

    @Override
    public long millis() {
        return millis.get();
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis.get());
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
