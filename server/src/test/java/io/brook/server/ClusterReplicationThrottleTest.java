package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.Await;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Kafka's replication throttles hold a partition's copy back (docs/cluster.md, section 6a), with
 * stock kafka-clients against three Brooks in one JVM, as {@code kafka-reassign-partitions.sh
 * --throttle} sets them: the new replica's node waits between its fetches while
 * {@code follower.replication.throttled.rate} is exceeded, the leader answers its fetches without
 * records while {@code leader.replication.throttled.rate} is, and once the throttles are deleted
 * the move completes with every record. No wall-clock assertion: each side's count of waits.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ClusterReplicationThrottleTest extends InJvmClusterTest {

    static final Duration WAIT = Duration.ofSeconds(30);
    static final String TOPIC = "throttled";
    static final int RECORDS = 3000;
    static final String FOLLOWER_RATE = "follower.replication.throttled.rate";
    static final String LEADER_RATE = "leader.replication.throttled.rate";
    static final String FOLLOWER_REPLICAS = "follower.replication.throttled.replicas";
    static final String LEADER_REPLICAS = "leader.replication.throttled.replicas";

    private long waits(int node) {
        return cluster.nodes.get(node - 1).context().cluster().replicationThrottleWaits();
    }

    private static void alter(Admin admin, ConfigResource r, Collection<AlterConfigOp> ops) throws Exception {
        admin.incrementalAlterConfigs(Map.of(r, ops)).all().get();
    }

    private static AlterConfigOp set(String key, String value) {
        return new AlterConfigOp(new ConfigEntry(key, value), AlterConfigOp.OpType.SET);
    }

    private static AlterConfigOp delete(String key) {
        return new AlterConfigOp(new ConfigEntry(key, ""), AlterConfigOp.OpType.DELETE);
    }

    @Test
    void bothSidesHoldTheCopyBackUntilTheThrottlesAreDeleted() throws Exception {
        cluster = InJvmCluster.start(dirs, "brook-throttle-test", 3, Map.of());
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        Properties props = InJvmCluster.clientProps(cluster.bootstrap());
        props.put("acks", "all");
        try (Admin admin = Admin.create(props)) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get();
            int old = ClusterPartitionMoveTest.awaitLeader(admin, TOPIC, 0);
            int target = old % 3 + 1;
            String pad = "x".repeat(1000);
            try (KafkaProducer<String, String> p = new KafkaProducer<>(props)) {
                for (int i = 0; i < RECORDS; i++) {
                    p.send(new ProducerRecord<>(TOPIC, 0, "k", "v" + i + pad));
                }
                p.flush();
            }

            // as kafka-reassign-partitions.sh --execute --throttle: a slow follower side on the new
            // node, a slower leader side on the old one, every replica of the topic throttled
            ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, TOPIC);
            ConfigResource source = new ConfigResource(ConfigResource.Type.BROKER, Integer.toString(old));
            ConfigResource copier = new ConfigResource(ConfigResource.Type.BROKER, Integer.toString(target));
            alter(admin, copier, List.of(set(FOLLOWER_RATE, Integer.toString(256 * 1024))));
            alter(admin, source, List.of(set(LEADER_RATE, Integer.toString(64 * 1024))));
            alter(admin, topic, List.of(set(FOLLOWER_REPLICAS, "*"), set(LEADER_REPLICAS, "*")));
            Await.until("every node has the topic's throttled replicas", WAIT, () -> cluster.nodes.stream()
                    .allMatch(b -> b.context().topics().get(TOPIC).configs().containsKey(FOLLOWER_REPLICAS)
                            && b.context().topics().get(TOPIC).configs().containsKey(LEADER_REPLICAS)));
            assertThat(waits(old)).isZero();
            assertThat(waits(target)).isZero();

            admin.alterPartitionReassignments(Map.of(tp, Optional.of(new NewPartitionReassignment(List.of(target)))))
                    .all().get();
            // the first fetch (1 MiB, a fetch's most) puts the follower side in debt: the copy waits
            Await.until("node " + target + "'s copy waits for its follower throttle", WAIT, () -> waits(target) > 0);
            // the follower side lifted, the copy fetches again at once and finds the leader side in debt
            alter(admin, copier, List.of(delete(FOLLOWER_RATE)));
            Await.until("node " + old + " holds records back from the copy", WAIT, () -> waits(old) > 0);
            assertThat(ClusterPartitionMoveTest.movedTo(admin, tp, target)).isFalse();

            // as kafka-reassign-partitions.sh --verify once done: the throttles go, and the move completes
            alter(admin, source, List.of(delete(LEADER_RATE)));
            alter(admin, topic, List.of(delete(FOLLOWER_REPLICAS), delete(LEADER_REPLICAS)));
            Await.until("the partition moved to node " + target, WAIT,
                    () -> ClusterPartitionMoveTest.movedTo(admin, tp, target));
            assertThat(admin.listOffsets(Map.of(tp, OffsetSpec.latest())).all().get().get(tp).offset())
                    .isEqualTo(RECORDS);
        }
    }
}
