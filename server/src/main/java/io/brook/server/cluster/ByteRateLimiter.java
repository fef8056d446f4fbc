package io.brook.server.cluster;

import java.time.Clock;

/**
 * A byte-rate limit as a token bucket on a clock: up to one second's worth of bytes may go at
 * once, and a transfer that finds the bucket not empty goes whole (the bucket may go into debt,
 * which the next transfers wait out), so a fetch larger than a second's budget is never refused
 * for good. The rate is passed on each call, so a changed throttle takes effect at once.
 *
 * <p>Hand-written rather than taken from a library: the rate limiters on the project's list count
 * permits per period on the system's nano time, while the replica fetcher needs byte counts, a
 * rate that changes at run time and a clock that tests drive. Thread-safe.
 */
public final class ByteRateLimiter {

    /** No limit: the default of Kafka's throttle rates. */
    public static final long UNLIMITED = Long.MAX_VALUE;
    /** How long a caller waits before asking again while the rate is 0 (nothing may go). */
    static final long ZERO_RATE_RECHECK_MS = 1000;

    private final Clock clock;
    private double available;
    private long lastMs;
    private long lastRate = -1;

    public ByteRateLimiter(Clock clock) {
        this.clock = clock;
        this.lastMs = clock.millis();
    }

    /**
     * Asks to transfer {@code bytes} at {@code ratePerSecond}: 0 when they may go now (and they
     * are counted), else how many milliseconds to wait before asking again (nothing is counted).
     */
    public synchronized long delayMs(long bytes, long ratePerSecond) {
        if (bytes < 0 || ratePerSecond < 0) {
            throw new IllegalArgumentException("bytes " + bytes + " and rate " + ratePerSecond + " must not be negative");
        }
        long now = clock.millis();
        if (lastRate >= 0 && lastRate != UNLIMITED && now > lastMs) {
            double refill = (double) lastRate * (now - lastMs) / 1000.0;
            available = Math.min((double) lastRate, available + refill);
        }
        if (ratePerSecond != lastRate) {
            // a first limit starts with a full second's budget; a changed one keeps the debt
            available = lastRate < 0 || lastRate == UNLIMITED ? ratePerSecond : Math.min(available, (double) ratePerSecond);
            lastRate = ratePerSecond;
        }
        if (ratePerSecond == UNLIMITED) {
            lastMs = now;
            return 0;
        }
        lastMs = Math.max(lastMs, now);
        if (ratePerSecond == 0) {
            return ZERO_RATE_RECHECK_MS;
        }
        if (available > 0 || (available == 0 && bytes == 0)) {
            available -= bytes;
            return 0;
        }
        // the debt (or the empty bucket) is repaid at the rate: ask again once it is
        return Math.max(1, (long) Math.ceil(-available * 1000.0 / ratePerSecond));
    }
}
