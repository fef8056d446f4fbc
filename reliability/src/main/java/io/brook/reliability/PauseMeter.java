package io.brook.reliability;

/**
 * The longest time between two successive events (acknowledgements, commits): a client that
 * stalls shows as one long pause. Events come from one thread at a time per meter; reads from any.
 */
final class PauseMeter {
    private volatile long lastNanos = System.nanoTime();
    private volatile long longestNanos;

    void event() {
        long now = System.nanoTime();
        longestNanos = Math.max(longestNanos, now - lastNanos);
        lastNanos = now;
    }

    /** Starts measuring afresh from now (after a warm-up). */
    void reset() {
        lastNanos = System.nanoTime();
        longestNanos = 0;
    }

    long longestNanos() {
        return longestNanos;
    }
}
