package io.brook.bench.runner;

import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * End-to-end latencies in microseconds, each measured from the record's intended send time
 * (see {@link Schedule}) to the moment the consumer received it. Single-threaded: only the
 * consuming thread records.
 */
final class LatencyRecorder {
    /** One hour: anything slower is clamped rather than dropped, so it still counts as slow. */
    static final long HIGHEST_MICROS = TimeUnit.HOURS.toMicros(1);

    private final Histogram histogram = new Histogram(HIGHEST_MICROS, 3);

    void record(long intendedNanos, long receivedNanos) {
        long micros = Math.max(0, (receivedNanos - intendedNanos) / 1_000);
        histogram.recordValue(Math.min(micros, HIGHEST_MICROS));
    }

    long count() {
        return histogram.getTotalCount();
    }

    /** The given percentile (0..100) in milliseconds. */
    double percentileMillis(double percentile) {
        return histogram.getValueAtPercentile(percentile) / 1_000.0;
    }

    double maxMillis() {
        return histogram.getMaxValue() / 1_000.0;
    }
}
