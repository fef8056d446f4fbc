package io.brook.bench.runner;

/**
 * Fixed-rate send schedule: record {@code i} is meant to leave at {@code start + i / rate}.
 *
 * <p>Latency is measured from this intended time, not from the moment {@code send} was actually
 * called. A sender that falls behind (a stalled broker, a full producer buffer, a GC pause)
 * therefore charges the wait to every record it delayed, which is what a client at that rate
 * would have seen; measuring from the actual send would hide it (coordinated omission).
 */
final class Schedule {
    private final long startNanos;
    private final double intervalNanos;

    Schedule(long startNanos, double recordsPerSecond) {
        if (!(recordsPerSecond > 0)) {
            throw new IllegalArgumentException("rate must be positive: " + recordsPerSecond);
        }
        this.startNanos = startNanos;
        this.intervalNanos = 1e9 / recordsPerSecond;
    }

    long intendedNanos(long index) {
        return startNanos + (long) (index * intervalNanos);
    }
}
