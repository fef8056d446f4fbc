package io.brook.server.security.quota;

/**
 * The token bucket Kafka measures {@code controller_mutation_rate} with (KIP-599): it holds at
 * most a burst of tokens, {@code rate × quota.window.num × quota.window.size.seconds}, gains
 * {@code rate} tokens a second up to that burst, and loses one for each partition mutation. Unlike
 * a windowed rate it may go below zero, and a negative balance is the debt to wait out:
 * {@code −tokens / rate} seconds. The rate and burst are passed in at each call, so a changed
 * quota applies from the next call while the balance carries over (capped at the new burst).
 *
 * <p>A new bucket is full. Not thread-safe: callers synchronize.
 */
public final class TokenBucket {

    private double tokens;
    private long lastMs;
    /** The rate and burst of the last call, and when it was: whether the bucket is idle and full. */
    private double lastRate;
    private double lastBurst;
    private long usedMs;

    /** A bucket holding {@code tokens} at {@code nowMs} (a new one: the burst). */
    public TokenBucket(double tokens, long nowMs) {
        this.tokens = tokens;
        this.lastMs = nowMs;
        this.lastBurst = tokens;
        this.usedMs = nowMs;
    }

    /** The burst of a quota of {@code rate} per second over {@code windowNum} windows of {@code windowMs}. */
    public static double burst(double rate, int windowNum, long windowMs) {
        return rate * windowNum * (windowMs / 1000.0);
    }

    /** The balance at {@code nowMs}, with what {@code rate} gave since the last call (at most {@code burst}). */
    public double tokens(double rate, double burst, long nowMs) {
        lastRate = rate;
        lastBurst = burst;
        usedMs = nowMs;
        long elapsed = nowMs - lastMs;
        if (elapsed > 0) {
            tokens = Math.min(burst, tokens + rate * elapsed / 1000.0);
            lastMs = nowMs;
        } else {
            tokens = Math.min(burst, tokens);
        }
        return tokens;
    }

    /** Takes {@code n} tokens at {@code nowMs}, however few there are; the balance after. */
    public double take(double n, double rate, double burst, long nowMs) {
        tokens = Math.min(burst, tokens(rate, burst, nowMs) - n);
        return tokens;
    }

    /**
     * Whether no call came for {@code idleMs} before {@code nowMs} and the bucket has filled up
     * again by then (at the rate and burst of its last call): it then holds what a new bucket
     * holds, and can be dropped.
     */
    public boolean idleAndFull(long nowMs, long idleMs) {
        return nowMs - usedMs >= idleMs && tokens + lastRate * (nowMs - lastMs) / 1000.0 >= lastBurst;
    }

    /** How long, in ms, a balance of {@code tokens} takes to come back to zero at {@code rate} (0: not negative). */
    public static long msToZero(double tokens, double rate) {
        return tokens >= 0 ? 0 : Math.round(-tokens / rate * 1000);
    }
}
