package io.brook.bench.runner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class LatencyRecorderTest {
    private static final long MS = 1_000_000L;

    @Test
    void shouldSpaceIntendedSendTimesByTheRate() {
        Schedule s = new Schedule(5_000, 1_000);
        assertThat(s.intendedNanos(0)).isEqualTo(5_000);
        assertThat(s.intendedNanos(1)).isEqualTo(5_000 + MS);
        assertThat(s.intendedNanos(1_000)).isEqualTo(5_000 + 1_000 * MS);
        assertThatThrownBy(() -> new Schedule(0, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * 1,000 records at 1,000/s, each delivered 1 ms after it was actually sent; the sender stalls
     * for 100 ms before record 100 and then sends the backlog at once. Measured from the actual
     * send, every record took 1 ms; measured from the intended send time, the ~100 records held
     * up by the stall waited up to 101 ms, which is what p99 must show.
     */
    @Test
    void shouldChargeASenderStallToEveryRecordItDelayed() {
        Schedule schedule = new Schedule(0, 1_000);
        LatencyRecorder corrected = new LatencyRecorder();
        LatencyRecorder naive = new LatencyRecorder();
        long stallEnds = schedule.intendedNanos(100) + 100 * MS;
        for (long i = 0; i < 1_000; i++) {
            long intended = schedule.intendedNanos(i);
            long actualSend = i >= 100 ? Math.max(intended, stallEnds) : intended;
            long received = actualSend + MS;
            corrected.record(intended, received);
            naive.record(actualSend, received);
        }
        assertThat(naive.percentileMillis(99)).isBetween(0.99, 1.01);
        assertThat(corrected.count()).isEqualTo(1_000);
        assertThat(corrected.percentileMillis(50)).isBetween(0.99, 1.01);
        assertThat(corrected.percentileMillis(99)).isBetween(90.0, 101.2);
        assertThat(corrected.maxMillis()).isBetween(100.9, 101.2);
    }

    @Test
    void shouldClampInsteadOfDroppingValuesBeyondTheRange() {
        LatencyRecorder r = new LatencyRecorder();
        r.record(0, 2 * 3_600_000L * MS);
        r.record(10 * MS, 0); // clock went backwards: counted as zero, not lost
        assertThat(r.count()).isEqualTo(2);
        assertThat(r.maxMillis()).isGreaterThanOrEqualTo(3_600_000.0 * 0.999);
    }
}
