package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.compat.connect.CollectingSinkConnector;
import io.brook.compat.connect.CountingSourceConnector;
import io.brook.testkit.FreePorts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stock Kafka Connect worker (connect-runtime, distributed mode, as {@code connect-distributed.sh}
 * starts it: a JVM of its own with the test class path) against the broker: it creates its
 * compacted config, offset and status topics, joins its group (protocol type {@code connect}),
 * and runs a source connector that writes 100 records (keeping its place in the offset topic)
 * and a sink connector that reads them back in its consumer group and commits. The connectors are
 * the test's own ({@code io.brook.compat.connect}). Runs against Kafka too ({@link BrookCluster}).
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ConnectCompatTest {

    private static final int RECORDS = 100;

    @TempDir
    static Path dir;

    @RegisterExtension
    static final BrookCluster cluster = BrookCluster.perClass();

    private static Process worker;
    private static Path workerLog;
    private static String rest;
    private static String prefix;
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @BeforeAll
    static void startWorker() throws Exception {
        prefix = Groups.unique("connect");
        int port = FreePorts.next();
        rest = "http://127.0.0.1:" + port;
        Path props = dir.resolve("worker.properties");
        Files.writeString(props, String.join("\n",
                "bootstrap.servers=" + cluster.bootstrapServers(),
                "group.id=" + prefix + "-cluster",
                "key.converter=org.apache.kafka.connect.storage.StringConverter",
                "value.converter=org.apache.kafka.connect.storage.StringConverter",
                "config.storage.topic=" + prefix + "-configs",
                "offset.storage.topic=" + prefix + "-offsets",
                "status.storage.topic=" + prefix + "-status",
                "config.storage.replication.factor=1",
                "offset.storage.replication.factor=1",
                "status.storage.replication.factor=1",
                "offset.flush.interval.ms=500",
                "listeners=http://127.0.0.1:" + port,
                ""), StandardCharsets.UTF_8);
        workerLog = dir.resolve("worker.log");
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m", "-cp", System.getProperty("java.class.path"), "-Dorg.slf4j.simpleLogger.defaultLogLevel=info",
                "org.apache.kafka.connect.cli.ConnectDistributed", props.toString()));
        worker = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(workerLog.toFile()).start();
        await(Duration.ofSeconds(90), "the worker's REST API and a leader of its group", () -> {
            HttpResponse<String> r = get("/connectors");
            return r != null && r.statusCode() == 200;
        });
    }

    @AfterAll
    static void stopWorker() throws Exception {
        if (worker != null) {
            worker.destroy();
            if (!worker.waitFor(30, TimeUnit.SECONDS)) {
                worker.destroyForcibly();
            }
        }
    }

    /** {@link Groups#await}; on time-out the failure carries the end of the worker's log. */
    private static void await(Duration timeout, String what, java.util.function.BooleanSupplier done) {
        try {
            Groups.await(timeout, what, done);
        } catch (AssertionError e) {
            List<String> log = lines(workerLog);
            throw new AssertionError(e.getMessage() + "; the worker's log ends:\n"
                    + String.join("\n", log.subList(Math.max(0, log.size() - 60), log.size())), e);
        }
    }

    /** A GET of the worker's REST API; null while it does not answer. */
    private static HttpResponse<String> get(String path) {
        return send(HttpRequest.newBuilder(URI.create(rest + path)).timeout(Duration.ofSeconds(10)).GET().build());
    }

    private static HttpResponse<String> send(HttpRequest request) {
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void createConnector(String name, Class<?> connectorClass, Map<String, String> config) {
        StringBuilder json = new StringBuilder("{\"name\":\"" + name + "\",\"config\":{\"connector.class\":\""
                + connectorClass.getName() + "\",\"tasks.max\":\"1\"");
        config.forEach((k, v) -> json.append(",\"").append(k).append("\":\"").append(v).append('"'));
        json.append("}}");
        // the worker answers 409 while its group rebalances: try again until it takes the connector
        await(Duration.ofSeconds(60), "the worker to create " + name, () -> {
            HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(rest + "/connectors"))
                    .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(json.toString())).build());
            return r != null && (r.statusCode() == 201 || r.statusCode() == 409 && connectorExists(name));
        });
    }

    private static boolean connectorExists(String name) {
        HttpResponse<String> r = get("/connectors/" + name);
        return r != null && r.statusCode() == 200;
    }

    private static void awaitRunning(String name) {
        await(Duration.ofSeconds(60), name + " and its task RUNNING", () -> {
            HttpResponse<String> r = get("/connectors/" + name + "/status");
            // {"name":..,"connector":{"state":"RUNNING",..},"tasks":[{"id":0,"state":"RUNNING",..}],..}
            return r != null && r.statusCode() == 200
                    && r.body().replaceAll("\\s", "").matches(".*\"connector\":\\{\"state\":\"RUNNING\".*"
                            + "\"tasks\":\\[\\{\"id\":0,\"state\":\"RUNNING\".*");
        });
    }

    @Test
    void aSourceConnectorWritesAndASinkConnectorReadsInItsGroup() throws Exception {
        String topic = prefix + "-data";
        Groups.createTopic(cluster.bootstrapServers(), topic, 2);
        createConnector(prefix + "-source", CountingSourceConnector.class, Map.of("topic", topic,
                "records", Integer.toString(RECORDS)));
        awaitRunning(prefix + "-source");
        // the source's place, kept in the offset topic once its records were acknowledged (KIP-875's GET offsets)
        await(Duration.ofSeconds(60), "the source's stored offset to reach " + RECORDS, () -> {
            HttpResponse<String> r = get("/connectors/" + prefix + "-source/offsets");
            return r != null && r.statusCode() == 200 && r.body().replaceAll("\\s", "").contains("\"next\":" + RECORDS);
        });
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
            expected.add("record-" + i);
        }
        List<String> written = Groups.readValues(cluster.bootstrapServers(), topic, 2, false);
        assertThat(written).containsExactlyInAnyOrderElementsOf(expected);

        Path out = dir.resolve("sink.txt");
        String sink = prefix + "-sink";
        createConnector(sink, CollectingSinkConnector.class, Map.of("topics", topic, "file", out.toString()));
        awaitRunning(sink);
        await(Duration.ofSeconds(60), "the sink to write " + RECORDS + " lines",
                () -> Files.exists(out) && lines(out).size() >= RECORDS);
        assertThat(lines(out)).containsExactlyInAnyOrderElementsOf(expected);

        try (Admin admin = Groups.admin(cluster.bootstrapServers())) {
            // the sink's consumer group (connect-<name>) commits the end of both partitions
            String group = "connect-" + sink;
            await(Duration.ofSeconds(60), "the sink's group to commit the end", () -> {
                try {
                    Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                            .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
                    return committed.values().stream().mapToLong(OffsetAndMetadata::offset).sum() == RECORDS;
                } catch (Exception e) {
                    return false;
                }
            });
            ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS)
                    .get(group);
            assertThat(d.members()).hasSize(1);
            assertThat(d.type()).isEqualTo(GroupType.CLASSIC);

            // the worker's own group and its internal topics: compacted, as Connect insists
            GroupListing workers = admin.listGroups().all().get(30, TimeUnit.SECONDS).stream()
                    .filter(g -> g.groupId().equals(prefix + "-cluster")).findFirst().orElseThrow();
            assertThat(workers.protocol()).isEqualTo("connect");
            assertThat(workers.type()).contains(GroupType.CLASSIC);
            for (String internal : List.of("-configs", "-offsets", "-status")) {
                ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, prefix + internal);
                Config c = admin.describeConfigs(List.of(r)).all().get(30, TimeUnit.SECONDS).get(r);
                assertThat(c.get("cleanup.policy").value()).as(internal).isEqualTo("compact");
            }
        }
    }

    private static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return List.of();
        }
    }
}
