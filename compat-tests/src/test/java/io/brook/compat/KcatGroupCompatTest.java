package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
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
 * kcat in balanced-consumer mode ({@code -G}): librdkafka's high-level consumer enables itself
 * only when the advertised ranges overlap its feature windows (FindCoordinator 0, OffsetCommit
 * 1–2, OffsetFetch 1, JoinGroup/SyncGroup/Heartbeat/LeaveGroup 0, protocol.md §1.5), then uses
 * FindCoordinator, JoinGroup, SyncGroup, Heartbeat, OffsetFetch, OffsetCommit and LeaveGroup.
 * Skipped locally when kcat is missing, failed in CI.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KcatGroupCompatTest {

    private static BrookCluster cluster;

    @BeforeAll
    static void start() {
        Tools.require(Tools.onPath("kcat") != null, "kcat");
        cluster = new BrookCluster(Groups.BROKER_CONFIGS);
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void shouldConsumeEveryPartitionInABalancedGroupAndCommit() throws Exception {
        String bootstrap = cluster.bootstrapServers();
        String topic = Groups.unique("kcat-group");
        String group = Groups.unique("kcat-g");
        int partitions = 3;
        Groups.createTopic(bootstrap, topic, partitions);
        List<String> expected = Groups.produce(bootstrap, topic, partitions, 20);

        List<String> cmd = new ArrayList<>(List.of(Tools.onPath("kcat").toString(), "-b", bootstrap,
                "-G", group, "-X", "auto.offset.reset=earliest", "-X", "auto.commit.interval.ms=100",
                "-X", "session.timeout.ms=6000", "-e", "-q", "-f", "%s\\n", topic));
        Tools.Result r = Tools.run(cmd, null, 90);
        assertThat(r.exit()).as("kcat exit; stderr: %s", r.err()).isZero();
        assertThat(r.out().lines().toList()).containsExactlyInAnyOrderElementsOf(expected);

        try (Admin admin = Groups.admin(bootstrap)) {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int p = 0; p < partitions; p++) {
                latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
            }
            Map<TopicPartition, Long> ends = new HashMap<>();
            admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).forEach((tp, info) -> ends.put(tp, info.offset()));
            Map<TopicPartition, Long> committed = new HashMap<>();
            Groups.await(Duration.ofSeconds(30), "kcat commits up to the end of every partition", () -> {
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

        // a second run of the same group starts from the committed offsets: nothing left to read
        Tools.Result again = Tools.run(cmd, null, 90);
        assertThat(again.exit()).as("kcat exit; stderr: %s", again.err()).isZero();
        assertThat(again.out().lines().toList()).isEmpty();
    }
}
