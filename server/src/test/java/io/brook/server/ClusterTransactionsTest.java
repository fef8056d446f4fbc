package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.api.FeatureLevels;
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
import org.apache.kafka.clients.admin.TopicListing;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Transactions across the nodes of a three-node cluster (docs/cluster.md, section 7): the
 * coordinator of a transactional id is the leader of its partition of {@code __transaction_state}
 * (created on the first FindCoordinator), the partitions a transaction writes to are led by every
 * node, so their writes are verified with a coordinator on another node and their markers written
 * there through the inter-broker client; a read_committed consumer sees exactly the committed
 * records, with transactions V2 (Kafka 4's Java producer against transaction.version 2) and with
 * classic transactions (transaction.version finalized at 0). A coordinator that stops in the middle
 * of a transaction and starts again leaves the producer able to go on, or fenced, as Kafka does.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ClusterTransactionsTest extends InJvmClusterTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String TOPIC = "txn-data";
    private static final int PARTITIONS = 6;

    @BeforeEach
    void startCluster() {
        cluster = InJvmCluster.start(dirs, "brook-cluster-txn-test", 3,
                Map.of("transaction.state.log.num.partitions", "3", "offsets.topic.num.partitions", "3"));
    }

    private static Properties props(String bootstrap) {
        Properties p = InJvmCluster.clientProps(bootstrap);
        p.put("retry.backoff.max.ms", "500");
        p.put("delivery.timeout.ms", "60000");
        p.put("max.block.ms", "60000");
        p.put("default.api.timeout.ms", "60000");
        return p;
    }

    private Properties producerProps(String transactionalId) {
        Properties p = props(cluster.bootstrap());
        p.put("transactional.id", transactionalId);
        p.put("linger.ms", "0");
        p.put("transaction.timeout.ms", "60000");
        return p;
    }

    /** Creates the topic and waits until every partition has a leader; returns partition → leader. */
    private Map<Integer, Integer> createTopic(Admin admin) throws Exception {
        // placement spreads partitions over the live brokers it knows: all three first (a node that
        // registered late, or missed its heartbeats on a busy machine, would get none)
        Await.until("all three brokers live", WAIT, () -> {
            try {
                return admin.describeCluster().nodes().get().size() == 3;
            } catch (Exception e) {
                return false;
            }
        });
        admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get();
        Map<Integer, Integer> leaders = new HashMap<>();
        Await.until("every partition with a leader", WAIT, () -> {
            leaders.clear();
            try {
                TopicDescription d = admin.describeTopics(List.of(TOPIC)).allTopicNames().get().get(TOPIC);
                for (TopicPartitionInfo p : d.partitions()) {
                    leaders.put(p.partition(), p.leader() == null ? -1 : p.leader().id());
                }
            } catch (Exception e) {
                return false;
            }
            return leaders.size() == PARTITIONS && !leaders.containsValue(-1);
        });
        return leaders;
    }

    private static int coordinatorOf(Admin admin, String transactionalId) throws Exception {
        return admin.describeTransactions(List.of(transactionalId)).description(transactionalId).get().coordinatorId();
    }

    private static void sendToEveryPartition(KafkaProducer<String, String> producer, String prefix) throws Exception {
        List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            sent.add(producer.send(new ProducerRecord<>(TOPIC, p, null, prefix + "-" + p)));
        }
        for (java.util.concurrent.Future<?> f : sent) {
            f.get();
        }
    }

    /** Every record a read_committed consumer reads, once it has read {@code expected} of them. */
    private Set<String> readCommitted(int expected) {
        Properties p = props(cluster.bootstrap());
        p.put("isolation.level", "read_committed");
        List<TopicPartition> tps = new ArrayList<>();
        for (int i = 0; i < PARTITIONS; i++) {
            tps.add(new TopicPartition(TOPIC, i));
        }
        Set<String> seen = new TreeSet<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            Await.until(expected + " committed records read", WAIT, () -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                    seen.add(r.value());
                }
                return seen.size() >= expected;
            });
            // and nothing beyond them: every partition's position is at its end
            Map<TopicPartition, Long> ends = consumer.endOffsets(tps);
            Await.until("positions at the ends", WAIT, () -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(50))) {
                    seen.add(r.value());
                }
                return tps.stream().allMatch(tp -> consumer.position(tp) >= ends.get(tp));
            });
        }
        return seen;
    }

    private static Set<String> values(String... prefixes) {
        Set<String> out = new TreeSet<>();
        for (String prefix : prefixes) {
            for (int p = 0; p < PARTITIONS; p++) {
                out.add(prefix + "-" + p);
            }
        }
        return out;
    }

    private void commitAbortCommitAcrossNodes(String transactionalId) throws Exception {
        try (Admin admin = Admin.create(props(cluster.bootstrap()))) {
            Map<Integer, Integer> leaders = createTopic(admin);
            assertThat(new TreeSet<>(leaders.values())).hasSizeGreaterThan(1);
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps(transactionalId))) {
                producer.initTransactions();
                int coordinator = coordinatorOf(admin, transactionalId);
                // the transaction writes to partitions of nodes other than its coordinator's
                assertThat(leaders.values()).anyMatch(l -> l != coordinator);

                producer.beginTransaction();
                sendToEveryPartition(producer, "first");
                producer.commitTransaction();

                producer.beginTransaction();
                sendToEveryPartition(producer, "aborted");
                producer.abortTransaction();

                producer.beginTransaction();
                sendToEveryPartition(producer, "second");
                producer.commitTransaction();
            }
            assertThat(readCommitted(2 * PARTITIONS)).isEqualTo(values("first", "second"));
            assertThat(admin.listTopics(new org.apache.kafka.clients.admin.ListTopicsOptions().listInternal(true))
                    .listings().get()).extracting(TopicListing::name).contains("__transaction_state");
        }
    }

    @Test
    void transactionsV2CommitAndAbortAcrossNodes() throws Exception {
        commitAbortCommitAcrossNodes("tx-v2");
    }

    @Test
    void classicTransactionsCommitAndAbortAcrossNodes() throws Exception {
        for (Brook node : cluster.nodes) {
            node.features().setFinalized(FeatureLevels.TRANSACTION_VERSION, (short) 0);
        }
        commitAbortCommitAcrossNodes("tx-v1");
    }

    @Test
    void theProducerGoesOnOrIsFencedWhenItsCoordinatorRestartsMidTransaction() throws Exception {
        String id = "tx-restart";
        try (Admin admin = Admin.create(props(cluster.bootstrap()))) {
            createTopic(admin);
            boolean committed;
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps(id))) {
                producer.initTransactions();
                producer.beginTransaction();
                sendToEveryPartition(producer, "before");
                producer.commitTransaction();

                int coordinator = coordinatorOf(admin, id);
                producer.beginTransaction();
                sendToEveryPartition(producer, "during");
                Brook node = cluster.nodes.get(coordinator - 1);
                node.stop();
                node.start();
                try {
                    producer.commitTransaction();
                    committed = true;
                } catch (KafkaException e) {
                    committed = false; // fenced or aborted, as Kafka may answer: the records must not show
                }
            }
            // a new producer of the id takes over and commits after the restart
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps(id))) {
                producer.initTransactions();
                producer.beginTransaction();
                sendToEveryPartition(producer, "after");
                producer.commitTransaction();
            }
            Set<String> expected = committed ? values("before", "during", "after") : values("before", "after");
            assertThat(readCommitted(expected.size())).isEqualTo(expected);
        }
    }
}
