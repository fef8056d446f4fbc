package io.brook.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.brook.wire.protocol.ApiKey;
import org.junit.jupiter.api.Test;

/** Each operation of {@link MetricsRecordingBenchmark} records what the broker records for its request. */
class MetricsRecordingBenchmarkTest {

    @Test
    void shouldRecordWhatTheBrokerRecordsForEachRequest() {
        MetricsRecordingBenchmark b = run(true);
        MetricsRecordingBenchmark.Requests r = new MetricsRecordingBenchmark.Requests();
        assertEquals(8L * r.largeRecords + 10, b.metrics.messagesIn(MetricsRecordingBenchmark.TOPIC));
        assertEquals(MetricsRecordingBenchmark.FETCH_BYTES, b.metrics.bytesOut(MetricsRecordingBenchmark.TOPIC));
        assertEquals(2, b.metrics.requestsAnswered(ApiKey.PRODUCE));
        assertEquals(1, b.metrics.requestsAnswered(ApiKey.FETCH));
    }

    @Test
    void shouldRecordNothingWhenNotRecording() {
        MetricsRecordingBenchmark b = run(false);
        assertEquals(0, b.metrics.messagesIn(MetricsRecordingBenchmark.TOPIC));
        assertEquals(0, b.metrics.requestsAnswered(ApiKey.PRODUCE));
    }

    private static MetricsRecordingBenchmark run(boolean recording) {
        MetricsRecordingBenchmark b = new MetricsRecordingBenchmark();
        b.recording = recording;
        b.setUp();
        MetricsRecordingBenchmark.Requests r = new MetricsRecordingBenchmark.Requests();
        b.produce8x16KiB(r);
        b.produce1x10(r);
        b.fetch64KiB(r);
        b.force();
        return b;
    }
}
