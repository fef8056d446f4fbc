package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.Brook;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole of {@code /metrics} after a known workload, parsed by the official Prometheus Python
 * client's text-format parser ({@code prometheus_client.parser.text_string_to_metric_families},
 * Debian's {@code python3-prometheus-client}, which {@code .ci/run} installs): the text must
 * parse, and the families a Kafka dashboard reads must be there with the workload's values.
 * Without a python3 that can import the module it is skipped, or fails with {@code CI=true}
 * ({@link Tools#require}).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PrometheusParserCompatTest {

    private static final String MODULE = "prometheus_client.parser";

    @TempDir
    Path dir;

    /**
     * Debian's interpreter first (where the Debian package installs the module), then the
     * {@code python3} on the PATH; null when neither can import the parser.
     */
    private static Path pythonWithParser() throws IOException, InterruptedException {
        List<Path> candidates = new ArrayList<>();
        Path debian = Path.of("/usr/bin/python3");
        if (Files.isExecutable(debian)) {
            candidates.add(debian);
        }
        Path onPath = Tools.onPath("python3");
        if (onPath != null) {
            candidates.add(onPath);
        }
        for (Path python : candidates) {
            if (Tools.run(List.of(python.toString(), "-c", "import " + MODULE), null, 30).exit() == 0) {
                return python;
            }
        }
        return null;
    }

    @Test
    void theOfficialParserAcceptsTheWholeExposition() throws Exception {
        Path python = pythonWithParser();
        Tools.require(python != null, "python3 with the module " + MODULE + " (Debian's python3-prometheus-client)");

        Map<String, String> configs = new HashMap<>(Groups.BROKER_CONFIGS);
        configs.put("brook.http.listener", "127.0.0.1:0");
        String metrics;
        String topic = Groups.unique("prom-parse");
        String group = Groups.unique("prom-parse-group");
        try (Brook brook = Brook.builder().port(0).config(configs).start()) {
            String bootstrap = brook.bootstrapServers();
            Groups.createTopic(bootstrap, topic, 1);
            Groups.produce(bootstrap, topic, 1, 10);
            try (KafkaConsumer<String, String> consumer = Groups.consumer(Groups.consumerProps(bootstrap, group))) {
                consumer.subscribe(List.of(topic));
                int[] read = {0};
                Groups.pollUntil(Duration.ofSeconds(30), () -> read[0] + " of 10 records",
                        () -> read[0] += consumer.poll(Duration.ofMillis(200)).count(), () -> read[0] >= 10);
                consumer.commitSync();
            }
            Groups.produce(bootstrap, topic, 1, 10, 3); // three records the group has not read

            HttpClient http = HttpClient.newHttpClient();
            URI uri = URI.create("http://127.0.0.1:" + brook.httpPort() + "/metrics");
            String lagSample = "brook_consumer_consumerlag_recordslag{group=\"" + group + "\",partition=\"0\",topic=\""
                    + topic + "\"} 3.0";
            String[] body = {""};
            Groups.await(Duration.ofSeconds(10), "the lag of the group on /metrics", () -> {
                try {
                    body[0] = http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString()).body();
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
                return body[0].contains(lagSample);
            });
            metrics = body[0];
        }

        Path text = dir.resolve("metrics.txt");
        Files.writeString(text, metrics, StandardCharsets.UTF_8);
        Path script = dir.resolve("prometheus_parse.py");
        try (InputStream in = PrometheusParserCompatTest.class.getResourceAsStream("/prometheus_parse.py")) {
            Files.copy(in, script);
        }
        Tools.Result r = Tools.run(List.of(python.toString(), script.toString(), text.toString()), null, 60);
        assertThat(r.exit()).as("the parser's error: %s", r.err()).isZero();
        String parsed = r.out();

        // the parser names a counter's family without "_total" and its sample with it
        assertThat(parsed)
                .contains("family kafka_server_brokertopicmetrics_messagesinpersec counter\n")
                .contains("sample kafka_server_brokertopicmetrics_messagesinpersec_total topic=" + topic + " 13.0\n")
                .contains("family kafka_server_brokertopicmetrics_bytesinpersec counter\n")
                .contains("family kafka_server_brokertopicmetrics_totalfetchrequestspersec counter\n")
                .contains("family kafka_log_log_logendoffset gauge\n")
                .contains("sample kafka_log_log_logendoffset partition=0,topic=" + topic + " 13.0\n")
                .contains("sample kafka_log_log_logstartoffset partition=0,topic=" + topic + " 0.0\n")
                .contains("family brook_consumer_consumerlag_recordslag gauge\n")
                .contains("sample brook_consumer_consumerlag_recordslag group=" + group + ",partition=0,topic=" + topic
                        + " 3.0\n")
                .contains("family kafka_network_requestmetrics_totaltimems summary\n")
                .contains("sample kafka_network_requestmetrics_totaltimems quantile=0.99,request=Produce ")
                .contains("sample kafka_server_kafkaserver_brokerstate - 3.0\n")
                .contains("family jvm_memory_used_bytes gauge\n");
        // every family of the text came through the parser
        long families = metrics.lines().filter(l -> l.startsWith("# TYPE ")).count();
        assertThat(parsed.lines().filter(l -> l.startsWith("family ")).count()).isEqualTo(families);
    }
}
