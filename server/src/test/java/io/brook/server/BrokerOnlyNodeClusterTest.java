package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.QuorumInfo;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Three voters and a fourth node with {@code process.roles=broker} alone, which finds the quorum
 * through {@code controller.quorum.bootstrap.servers} and follows the metadata log as a Ratis
 * listener (docs/cluster.md, section 6): it registers, leads partitions of a new topic, and stock
 * kafka-clients produce to and consume from them through it; DescribeQuorum lists it as an
 * observer, never as a voter.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BrokerOnlyNodeClusterTest extends InJvmClusterTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private static int brokers(Admin admin) {
        try {
            return admin.describeCluster().nodes().get().size();
        } catch (Exception e) {
            return -1;
        }
    }

    private static List<Integer> ledBy(Admin admin, String topic, int node) {
        List<Integer> out = new ArrayList<>();
        try {
            TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
            for (TopicPartitionInfo p : d.partitions()) {
                if (p.leader() != null && p.leader().id() == node) {
                    out.add(p.partition());
                }
            }
        } catch (Exception e) {
            return List.of();
        }
        return out;
    }

    @Test
    void aBrokerOnlyNodeLeadsPartitionsAndServesClientsButNeverVotes() throws Exception {
        cluster = InJvmCluster.start(dirs, "brook-broker-only-test", 3, Map.of());
        Brook four = cluster.startBrokerOnly(4);
        String onlyFour = four.bootstrapServers();

        try (Admin admin = Admin.create(InJvmCluster.ackedClientProps(onlyFour))) {
            Await.until("four brokers in the cluster", WAIT, () -> brokers(admin) == 4);
            admin.createTopics(List.of(new NewTopic("spread", 8, (short) 1))).all().get();
            List<Integer> ledByFour = new ArrayList<>();
            Await.until("node 4 leads partitions of the topic", WAIT, () -> {
                ledByFour.clear();
                ledByFour.addAll(ledBy(admin, "spread", 4));
                return !ledByFour.isEmpty();
            });

            Properties props = InJvmCluster.ackedClientProps(cluster.bootstrap());
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
                for (int p = 0; p < 8; p++) {
                    for (int i = 0; i < 5; i++) {
                        producer.send(new ProducerRecord<>("spread", p, null, p + "-" + i)).get();
                    }
                }
            }
            List<TopicPartition> tps = new ArrayList<>();
            for (int p = 0; p < 8; p++) {
                tps.add(new TopicPartition("spread", p));
            }
            Set<String> seen = new TreeSet<>();
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
                consumer.assign(tps);
                consumer.seekToBeginning(tps);
                Await.until("all 40 records consumed", WAIT, () -> {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                        seen.add(r.value());
                    }
                    return seen.size() >= 40;
                });
            }
            for (int p : ledByFour) {
                assertThat(seen).contains(p + "-0", p + "-4");
            }

            // node 4 answers DescribeQuorum with its own view: three voters, itself the observer
            QuorumInfo quorum = admin.describeMetadataQuorum().quorumInfo().get();
            assertThat(quorum.voters()).extracting(QuorumInfo.ReplicaState::replicaId).containsExactlyInAnyOrder(1, 2, 3);
            assertThat(quorum.observers()).extracting(QuorumInfo.ReplicaState::replicaId).containsExactly(4);
            assertThat(quorum.leaderId()).isIn(1, 2, 3);
        }
    }
}
