package io.brook.server.security.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.stats.Rate;
import org.junit.jupiter.api.Test;

/** The quota rate against Kafka's own sampled Rate, and the throttle time that follows from it. */
class RateWindowsTest {

    @Test
    void aFreshRateIsMeasuredOverTheFullWindowSpan() {
        RateWindows w = new RateWindows(11, 1000);
        w.record(10_000, 0);
        assertThat(w.rate(0)).isEqualTo(1000.0); // 10 000 bytes over at least 10 windows
        // X = (O - T) / T * W = (1000 - 500) / 500 * 10 000
        assertThat(w.throttleMs(500, 0)).isEqualTo(10_000);
        assertThat(w.throttleMs(1000, 0)).isZero();
    }

    @Test
    void samplesOlderThanTheSpanAreForgotten() {
        RateWindows w = new RateWindows(11, 1000);
        w.record(10_000, 0);
        assertThat(w.rate(10_999)).isGreaterThan(0);
        assertThat(w.rate(11_000)).isZero();
        assertThat(w.throttleMs(1, 11_000)).isZero();
    }

    @Test
    void measuresWhatKafkasRateMeasures() {
        MetricConfig config = new MetricConfig().samples(11).timeWindow(1000, TimeUnit.MILLISECONDS);
        Random random = new Random(15);
        for (int run = 0; run < 50; run++) {
            Rate kafka = new Rate();
            RateWindows ours = new RateWindows(11, 1000);
            long now = random.nextInt(1_000_000);
            for (int i = 0; i < 300; i++) {
                now += random.nextInt(random.nextBoolean() ? 300 : 4000);
                double v = random.nextInt(100_000);
                kafka.record(config, v, now);
                ours.record(v, now);
                long at = now + random.nextInt(2000);
                double expected = kafka.measure(config, at);
                assertThat(ours.rate(at)).as("run %d step %d", run, i).isCloseTo(expected, within(1e-6 * expected + 1e-9));
                assertThat(ours.spanMs(at)).isEqualTo(kafka.windowSize(config, at));
            }
        }
    }
}
