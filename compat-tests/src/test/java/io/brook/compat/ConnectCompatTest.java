package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.compat.connect.CollectingSinkConnector;
import io.brook.compat.connect.CountingSourceConnector;
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

    private static ConnectWorker worker;
    private static String prefix;

    @BeforeAll
    static void startWorker() throws Exception {
        prefix = Groups.unique("connect");
        worker = ConnectWorker.start(dir, cluster.bootstrapServers(), prefix + "-cluster", Map.of());
    }

    @AfterAll
    static void stopWorker() throws Exception {
        if (worker != null) {
            worker.close();
        }
    }

    @Test
    void aSourceConnectorWritesAndASinkConnectorReadsInItsGroup() throws Exception {
        String topic = prefix + "-data";
        Groups.createTopic(cluster.bootstrapServers(), topic, 2);
        worker.createConnector(prefix + "-source", CountingSourceConnector.class, Map.of("topic", topic,
                "records", Integer.toString(RECORDS)));
        worker.awaitRunning(prefix + "-source");
        // the source's place, kept in the offset topic once its records were acknowledged
        worker.awaitSourceOffset(prefix + "-source", RECORDS);
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
            expected.add("record-" + i);
        }
        List<String> written = Groups.readValues(cluster.bootstrapServers(), topic, 2, false);
        assertThat(written).containsExactlyInAnyOrderElementsOf(expected);

        Path out = dir.resolve("sink.txt");
        String sink = prefix + "-sink";
        worker.createConnector(sink, CollectingSinkConnector.class, Map.of("topics", topic, "file", out.toString()));
        worker.awaitRunning(sink);
        worker.await(Duration.ofSeconds(60), "the sink to write " + RECORDS + " lines",
                () -> Files.exists(out) && ConnectWorker.lines(out).size() >= RECORDS);
        assertThat(ConnectWorker.lines(out)).containsExactlyInAnyOrderElementsOf(expected);

        try (Admin admin = Groups.admin(cluster.bootstrapServers())) {
            // the sink's consumer group (connect-<name>) commits the end of both partitions
            String group = "connect-" + sink;
            worker.await(Duration.ofSeconds(60), "the sink's group to commit the end", () -> {
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
                    .filter(g -> g.groupId().equals(worker.groupId())).findFirst().orElseThrow();
            assertThat(workers.protocol()).isEqualTo("connect");
            assertThat(workers.type()).contains(GroupType.CLASSIC);
            for (String internal : List.of("-configs", "-offsets", "-status")) {
                ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, worker.groupId() + internal);
                Config c = admin.describeConfigs(List.of(r)).all().get(30, TimeUnit.SECONDS).get(r);
                assertThat(c.get("cleanup.policy").value()).as(internal).isEqualTo("compact");
            }
        }
    }
}
