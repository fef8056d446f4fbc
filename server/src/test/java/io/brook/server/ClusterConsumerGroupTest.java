package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Consumer groups in a three-node cluster (docs/cluster.md, section 7): a group's coordinator is
 * the leader of its {@code __consumer_offsets} partition, found through FindCoordinator on any
 * node, here a node other than the one that leads the group's topic; a stock consumer commits
 * there, and a new consumer of the group resumes from the committed offset.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ClusterConsumerGroupTest extends InJvmClusterTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    private List<Brook> nodes;

    @BeforeEach
    void startCluster() {
        cluster = InJvmCluster.start(dirs, "brook-cluster-groups-test", 3,
                Map.of("offsets.topic.num.partitions", "3", "group.initial.rebalance.delay.ms", "0"));
        nodes = cluster.nodes;
    }

    private String bootstrap() {
        return cluster.bootstrap();
    }

    private Properties props(String group) {
        Properties p = InJvmCluster.clientProps(bootstrap());
        p.put("default.api.timeout.ms", "20000");
        if (group != null) {
            p.put("group.id", group);
            p.put("enable.auto.commit", "false");
            p.put("auto.offset.reset", "earliest");
        }
        return p;
    }

    /** The group's coordinator as FindCoordinator answers it (through DescribeGroups), once the group exists. */
    private static int coordinatorOf(Admin admin, String group) throws Exception {
        ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).all().get(20, TimeUnit.SECONDS).get(group);
        return d.coordinator().id();
    }

    /** The leader of each partition of {@code topic}, -1 for none; empty while the topic is unknown. */
    private static Map<Integer, Integer> leaders(Admin admin, String topic) {
        Map<Integer, Integer> out = new HashMap<>();
        try {
            for (TopicPartitionInfo p : admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions()) {
                out.put(p.partition(), p.leader() == null ? -1 : p.leader().id());
            }
        } catch (Exception e) {
            return Map.of();
        }
        return out;
    }

    /** A group's partition of {@code __consumer_offsets}: Kafka's hash of the id, over three partitions. */
    private static int offsetsPartition(String group) {
        return (group.hashCode() & 0x7fffffff) % 3;
    }

    @Test
    void aGroupCommitsOnACoordinatorOnAnotherNodeAndANewConsumerResumesThere() throws Exception {
        TopicPartition tp = new TopicPartition("orders", 0);
        int topicLeader;
        String group = null;
        int coordinator = -1;
        try (Admin admin = Admin.create(props(null))) {
            Await.until("three brokers in Metadata", WAIT, () -> {
                try {
                    return admin.describeCluster().nodes().get().size() == 3;
                } catch (Exception e) {
                    return false;
                }
            });
            admin.createTopics(List.of(new NewTopic("orders", 1, (short) 1))).all().get();
            // only the node that created the topic reads its own write at once: the node the
            // describe goes to may apply the decision a moment later
            Map<Integer, Integer> ordersLeader = new HashMap<>();
            Await.until("orders with a leader", WAIT, () -> {
                ordersLeader.putAll(leaders(admin, "orders"));
                return ordersLeader.size() == 1 && !ordersLeader.containsValue(-1);
            });
            topicLeader = ordersLeader.get(0);
            // the first lookup has __consumer_offsets created through the controller; its three
            // partitions spread over the nodes
            try {
                admin.describeConsumerGroups(List.of("nobody")).all().get(20, TimeUnit.SECONDS);
            } catch (Exception expected) {
                // a group that does not exist: only the lookup matters
            }
            Map<Integer, Integer> offsetsLeaders = new HashMap<>();
            Await.until("__consumer_offsets with a leader for each partition", WAIT, () -> {
                offsetsLeaders.putAll(leaders(admin, "__consumer_offsets"));
                return offsetsLeaders.size() == 3 && !offsetsLeaders.containsValue(-1);
            });
            for (int i = 0; group == null; i++) {
                int leader = offsetsLeaders.get(offsetsPartition("group-" + i));
                if (leader != topicLeader) {
                    group = "group-" + i;
                    coordinator = leader;
                }
            }
        }
        assertThat(coordinator).isNotEqualTo(topicLeader).isIn(1, 2, 3);

        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props(null))) {
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>("orders", 0, null, "o" + i)).get();
            }
        }
        List<Long> first = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props(group))) {
            consumer.subscribe(List.of("orders"));
            Await.until("the first consumer reads all ten", WAIT, () -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                    first.add(r.offset());
                }
                return first.size() >= 10;
            });
            consumer.commitSync(Map.of(tp, new OffsetAndMetadata(6)));
            assertThat(consumer.committed(java.util.Set.of(tp)).get(tp).offset()).isEqualTo(6);
        }
        assertThat(first).startsWith(0L);

        List<Long> second = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props(group))) {
            consumer.subscribe(List.of("orders"));
            Await.until("the second consumer reads from the committed offset", WAIT, () -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                    second.add(r.offset());
                }
                return second.size() >= 4;
            });
        }
        assertThat(second).containsExactly(6L, 7L, 8L, 9L);
        try (Admin admin = Admin.create(props(null))) {
            assertThat(coordinatorOf(admin, group)).isEqualTo(coordinator);
        }
    }
}
