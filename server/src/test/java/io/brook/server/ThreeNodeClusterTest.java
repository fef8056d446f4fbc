package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Three Brooks in one JVM form a cluster over real Ratis (docs/cluster.md), and stock
 * kafka-clients use it as they would use Kafka: a 12-partition topic created through one node is
 * spread over all three, records go to and come from every partition, Metadata lists three
 * brokers; a stopped node's partitions have no leader while the others keep serving, and they
 * serve again, with their data, once the node is back.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ThreeNodeClusterTest extends InJvmClusterTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private List<Brook> nodes;

    @BeforeEach
    void startCluster() {
        cluster = InJvmCluster.start(dirs, "brook-three-node-test", 3, Map.of());
        nodes = cluster.nodes;
    }

    private String bootstrap() {
        return cluster.bootstrap();
    }

    private Properties clientProps(String bootstrap) {
        Properties p = InJvmCluster.clientProps(bootstrap);
        p.put("acks", "all");
        p.put("linger.ms", "0");
        p.put("delivery.timeout.ms", "20000");
        return p;
    }

    private static Map<Integer, Integer> leaders(Admin admin, String topic) throws Exception {
        TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
        Map<Integer, Integer> out = new HashMap<>();
        for (TopicPartitionInfo p : d.partitions()) {
            out.put(p.partition(), p.leader() == null ? -1 : p.leader().id());
        }
        return out;
    }

    private static Map<Integer, Integer> leadersOrEmpty(Admin admin, String topic) {
        try {
            return leaders(admin, topic);
        } catch (Exception e) {
            return Map.of();
        }
    }

    private static int consumeAll(String bootstrap, Properties props, String topic, int partitions, int expected) {
        List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            tps.add(new TopicPartition(topic, p));
        }
        Set<String> seen = new TreeSet<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            Await.until("all " + expected + " records consumed from " + bootstrap, WAIT, () -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                    seen.add(r.partition() + ":" + r.value());
                }
                return seen.size() >= expected;
            });
        }
        return seen.size();
    }

    @Test
    void stockClientsUseAllThreeNodesAndAStoppedNodeComesBack() throws Exception {
        String all = bootstrap();
        try (Admin admin = Admin.create(clientProps(all))) {
            Await.until("three brokers in Metadata", WAIT, () -> {
                try {
                    return admin.describeCluster().nodes().get().size() == 3;
                } catch (Exception e) {
                    return false;
                }
            });
            // created through node 2 alone
            try (Admin viaTwo = Admin.create(clientProps(nodes.get(1).bootstrapServers()))) {
                viaTwo.createTopics(List.of(new NewTopic("spread", 12, (short) 1))).all().get();
            }
            // the other nodes learn of the topic as their images apply it
            Map<Integer, Integer> leaders = new HashMap<>();
            Await.until("every partition with a leader", WAIT, () -> {
                Map<Integer, Integer> now = leadersOrEmpty(admin, "spread");
                leaders.putAll(now);
                return now.size() == 12 && !now.containsValue(-1);
            });
            assertThat(new TreeSet<>(leaders.values())).containsExactly(1, 2, 3);
            assertThat(admin.describeCluster().nodes().get()).extracting(Node::id).containsExactlyInAnyOrder(1, 2, 3);
            assertThat(admin.describeCluster().controller().get().id()).isIn(1, 2, 3);

            Properties props = clientProps(all);
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
                for (int i = 0; i < 120; i++) {
                    producer.send(new ProducerRecord<>("spread", i % 12, null, "v" + i)).get();
                }
            }
            assertThat(consumeAll(all, props, "spread", 12, 120)).isEqualTo(120);

            // node 3 stops: its partitions have no leader, the others keep serving
            Brook three = nodes.get(2);
            three.stop();
            Await.until("node 3's partitions without a leader", WAIT, () -> {
                Map<Integer, Integer> now = leadersOrEmpty(admin, "spread");
                return !now.isEmpty() && leaders.entrySet().stream()
                        .allMatch(e -> e.getValue() != 3 || now.get(e.getKey()) == -1);
            });
            int onOne = leaders.entrySet().stream().filter(e -> e.getValue() == 1).findFirst().orElseThrow().getKey();
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(clientProps(bootstrap()))) {
                producer.send(new ProducerRecord<>("spread", onOne, null, "while-3-is-down")).get();
            }

            // node 3 comes back and leads its partitions again, with their records
            three.start();
            Await.until("node 3 leads again", WAIT, () -> leadersOrEmpty(admin, "spread").equals(leaders));
            assertThat(consumeAll(all, clientProps(bootstrap()), "spread", 12, 121)).isEqualTo(121);
        }
    }
}
