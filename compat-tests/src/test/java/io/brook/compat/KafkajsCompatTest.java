package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A kafkajs 2.2.4 consumer group (two members, JoinGroup v5 with MEMBER_ID_REQUIRED, Fetch v11
 * with READ_COMMITTED, OffsetCommit v5) reads a multi-partition topic completely and commits;
 * kafkajs' admin client then reads the group back (OffsetFetch v4, DescribeGroups v2, ListGroups v2).
 * The node script lives in {@code src/test/node}; {@code npm ci} there installs kafkajs. Skipped
 * locally when node or kafkajs is missing, failed in CI.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KafkajsCompatTest {

    static final Path NODE_DIR = Path.of("src", "test", "node");

    private static BrookCluster cluster;

    @BeforeAll
    static void start() {
        Tools.require(Tools.onPath("node") != null, "node");
        Tools.require(Tools.exists(NODE_DIR.resolve("node_modules").resolve("kafkajs")),
                "kafkajs (run npm ci in compat-tests/src/test/node)");
        cluster = new BrookCluster(Groups.BROKER_CONFIGS);
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void shouldReadEveryPartitionInAConsumerGroupAndCommit() throws Exception {
        String bootstrap = cluster.bootstrapServers();
        String topic = Groups.unique("kafkajs");
        String group = Groups.unique("kafkajs-group");
        int partitions = 4;
        Groups.createTopic(bootstrap, topic, partitions);
        List<String> expected = Groups.produce(bootstrap, topic, partitions, 25);

        Tools.Result r = Tools.run(List.of(Tools.onPath("node").toString(), "group-consumer.js", bootstrap, topic, group,
                Integer.toString(expected.size()), "2"), NODE_DIR, 90);
        assertThat(r.exit()).as("node exit; stderr: %s", r.err()).isZero();
        for (String v : expected) {
            assertThat(r.out()).contains("\"" + v + "\"");
        }
        // kafkajs' own admin view after both members left: offsets at the end, group Empty and listed
        for (int p = 0; p < partitions; p++) {
            assertThat(r.out()).contains("{\"partition\":" + p + ",\"offset\":25}");
        }
        assertThat(r.out()).contains("\"state\":\"Empty\"").contains("\"listed\":true");

        try (Admin admin = Groups.admin(bootstrap)) {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int p = 0; p < partitions; p++) {
                latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
            }
            Map<TopicPartition, Long> ends = new HashMap<>();
            admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).forEach((tp, info) -> ends.put(tp, info.offset()));
            Map<TopicPartition, Long> committed = new HashMap<>();
            Groups.await(Duration.ofSeconds(30), "kafkajs commits up to the end of every partition", () -> {
                try {
                    Map<TopicPartition, OffsetAndMetadata> c = admin.listConsumerGroupOffsets(group)
                            .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
                    committed.clear();
                    c.forEach((tp, om) -> committed.put(tp, om.offset()));
                    return committed.equals(ends);
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
            assertThat(committed).isEqualTo(ends);
        }
    }
}
