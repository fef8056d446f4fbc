package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.Brook;
import io.prometheus.jmx.JmxCollector;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A jmx_exporter rules file for Kafka (test resource {@code jmx-exporter/kafka.yml}, in
 * jmx_exporter's rule format) run by jmx_exporter's own collector against Brook's MBeans: every
 * Kafka-named family of Brook's {@code /metrics} comes out of the rules under the same name, with
 * the same values, so dashboards built on jmx_exporter and on {@code /metrics} agree.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class JmxExporterRulesTest {

    private static final Pattern TYPE = Pattern.compile("(?m)^# TYPE (\\S+) (\\S+)$");

    @Test
    void kafkaRulesMapBrooksMBeansToTheNamesOfItsPrometheusEndpoint() throws Exception {
        Map<String, String> configs = new HashMap<>(Groups.BROKER_CONFIGS);
        configs.put("brook.http.listener", "127.0.0.1:0");
        try (Brook brook = Brook.builder().port(0).config(configs).start()) {
            String topic = Groups.unique("jmx-rules");
            Groups.createTopic(brook.bootstrapServers(), topic, 2);
            Groups.produce(brook.bootstrapServers(), topic, 2, 12);
            MetricsCompatTest.awaitMBeans();

            PrometheusRegistry registry = new PrometheusRegistry();
            try (InputStream rules = getClass().getResourceAsStream("/jmx-exporter/kafka.yml")) {
                new JmxCollector(rules).register(registry);
            }
            String exported = text(registry.scrape());
            String ours = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                    "http://127.0.0.1:" + brook.httpPort() + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();

            Set<String> ourKafkaFamilies = families(ours);
            Set<String> exportedFamilies = families(exported);
            assertThat(ourKafkaFamilies).isNotEmpty();
            assertThat(exportedFamilies).containsAll(ourKafkaFamilies);

            String messagesIn = "kafka_server_brokertopicmetrics_messagesinpersec_total{topic=\"" + topic + "\"}";
            assertThat(value(exported, messagesIn)).isEqualTo(value(ours, messagesIn)).isPositive();
            String endOffset = "kafka_log_log_logendoffset{partition=\"1\",topic=\"" + topic + "\"}";
            assertThat(value(exported, endOffset)).isEqualTo(value(ours, endOffset)).isPositive();
            assertThat(value(exported, "kafka_server_kafkaserver_brokerstate")).isEqualTo(3);
            assertThat(value(exported, "kafka_log_logmanager_offlinelogdirectorycount")).isZero();
            assertThat(exported).contains("kafka_network_requestmetrics_errorspersec_total{error=\"NONE\","
                    + "request=\"Produce\"}");
        }
    }

    private static String text(MetricSnapshots snapshots) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(out, snapshots);
        return out.toString(StandardCharsets.UTF_8);
    }

    /** The families under Kafka's domains. */
    private static Set<String> families(String text) {
        Set<String> names = new TreeSet<>();
        Matcher m = TYPE.matcher(text);
        while (m.find()) {
            if (m.group(1).startsWith("kafka_")) {
                names.add(m.group(1));
            }
        }
        return names;
    }

    private static double value(String text, String sample) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(sample) + " (\\S+)$").matcher(text);
        return m.find() ? Double.parseDouble(m.group(1)) : Double.NaN;
    }
}
