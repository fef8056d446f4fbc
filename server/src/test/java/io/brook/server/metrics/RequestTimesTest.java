package io.brook.server.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.codahale.metrics.Histogram;
import com.codahale.metrics.Snapshot;
import io.brook.wire.protocol.ApiKey;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class RequestTimesTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    @Test
    void shouldSampleTheSameRequestsForTheSixHistogramsOfARequestType() {
        BrokerMetrics metrics = new BrokerMetrics(false);
        long t = System.nanoTime();
        for (int i = 0; i < 5000; i++) {
            long started = t + i * MS;
            // request queue i ms, nothing local or remote, response send i ms: total 2i ms
            metrics.requestAnswered(ApiKey.PRODUCE, (short) 9, t, started, started, started, started, started + i * MS,
                    false, null);
        }

        Histogram queue = histogram(metrics, "RequestQueueTimeMs");
        Histogram send = histogram(metrics, "ResponseSendTimeMs");
        Histogram total = histogram(metrics, "TotalTimeMs");
        assertThat(queue.getCount()).isEqualTo(5000);
        assertThat(total.getCount()).isEqualTo(5000);
        long[] queued = queue.getSnapshot().getValues();
        assertThat(queued).hasSize(RequestTimes.SIZE);
        // one sample of requests: the same values, where six reservoirs would each have drawn its own
        assertThat(send.getSnapshot().getValues()).isEqualTo(queued);
        assertThat(total.getSnapshot().getValues()).isEqualTo(Arrays.stream(queued).map(v -> 2 * v).toArray());
        assertThat(histogram(metrics, "LocalTimeMs").getSnapshot().getMax()).isZero();
        assertThat(metrics.requestsAnswered(ApiKey.PRODUCE)).isEqualTo(5000);
    }

    @Test
    void shouldKeepEveryRequestUntilTheSampleIsFull() {
        RequestTimes times = new RequestTimes(0);
        for (int i = 1; i <= 100; i++) {
            times.update(i * MS, i, 0, 0, 0, 0, 0);
        }
        Snapshot s = times.histogram(0).getSnapshot();
        assertThat(s.size()).isEqualTo(100);
        assertThat(s.getMin()).isEqualTo(1);
        assertThat(s.getMax()).isEqualTo(100);
        assertThat(s.getMedian()).isBetween(49.0, 51.0);
        assertThat(times.histogram(3).getCount()).isEqualTo(100);
    }

    @Test
    void shouldDescribeTheLastMinutesMoreThanTheOldOnes() {
        RequestTimes times = new RequestTimes(0);
        for (int i = 0; i < 10_000; i++) {
            times.update(i * MS, 1, 1, 1, 1, 1, 1);
        }
        long tenMinutes = TimeUnit.MINUTES.toNanos(10);
        for (int i = 0; i < 10_000; i++) {
            times.update(tenMinutes + i * MS, 7, 7, 7, 7, 7, 7);
        }
        Snapshot s = times.histogram(5).getSnapshot();
        assertThat(s.size()).isEqualTo(RequestTimes.SIZE);
        assertThat(s.getMedian()).isEqualTo(7.0);
        assertThat(s.get99thPercentile()).isEqualTo(7.0);
    }

    @Test
    void shouldRescaleItsWeightsAfterAnHour() {
        RequestTimes times = new RequestTimes(0);
        times.update(MS, 3, 3, 3, 3, 3, 3);
        long later = TimeUnit.HOURS.toNanos(3);
        for (int i = 0; i < 10; i++) {
            times.update(later + i * MS, 5, 5, 5, 5, 5, 5);
        }
        Snapshot s = times.histogram(2).getSnapshot();
        assertThat(s.size()).isEqualTo(11);
        // weights stay finite: the old request weighs next to nothing, the new ones alike
        assertThat(s.getMean()).isCloseTo(5.0, within(0.01));
        assertThat(s.getMedian()).isEqualTo(5.0);
    }

    @Test
    void shouldRefuseUpdatesThroughAHistogram() {
        Histogram h = new RequestTimes(0).histogram(1);
        assertThatThrownBy(() -> h.update(1L)).isInstanceOf(UnsupportedOperationException.class);
    }

    private static Histogram histogram(BrokerMetrics metrics, String name) {
        return (Histogram) metrics.registry().getMetrics().get(MetricName.of("kafka.network", "RequestMetrics", name,
                "request", ApiKey.PRODUCE.displayName()).objectName());
    }
}
