package io.brook.server.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.Brook;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A single Brook reports Kafka's controller gauges as the active controller and only broker of
 * its cluster, so that dashboards and alerts written for Kafka (one active controller in the
 * cluster, no offline partition) hold for it too.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SingleNodeControllerMetricsTest {

    private static final String PREFIX = "kafka_controller_kafkacontroller_";

    @Test
    void aSingleNodeIsTheActiveControllerAndOnlyBrokerAndCountsItsTopicsAndPartitions() {
        try (Brook brook = Brook.builder().config("brook.http.listener", "127.0.0.1:0").start()) {
            assertThat(brook.createTopic("orders", 3)).isTrue();
            assertThat(brook.createTopic("payments", 2)).isTrue();

            String metrics = Scrape.metrics(brook);

            assertThat(Scrape.value(metrics, PREFIX + "activecontrollercount")).isEqualTo(1);
            assertThat(Scrape.value(metrics, PREFIX + "activebrokercount")).isEqualTo(1);
            assertThat(Scrape.value(metrics, PREFIX + "fencedbrokercount")).isZero();
            assertThat(Scrape.value(metrics, PREFIX + "globaltopiccount")).isEqualTo(2);
            assertThat(Scrape.value(metrics, PREFIX + "globalpartitioncount")).isEqualTo(5);
            assertThat(Scrape.value(metrics, PREFIX + "offlinepartitionscount")).isZero();
        }
    }
}
