package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Transactions across three Brook processes of the three-node example ({@link ProcessCluster},
 * docs/cluster.md, section 7), with Kafka's Java producer at its default settings (transactions
 * V2, the default linger, 50 partitions of {@code __transaction_state}) knowing one node only:
 * the partitions a transaction writes to are spread over every node, so most are led by another
 * node than the transaction's coordinator, and the records are sent without waiting for them
 * before the transaction ends. Commits and aborts in a row; a read_committed consumer sees exactly
 * the committed records. Skipped against an external cluster ({@code -Dbootstrap.servers}).
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ClusterTransactionsCompatTest {

    private static final int PARTITIONS = 6;

    @RegisterExtension
    static final ProcessClusterExtension NODES = new ProcessClusterExtension("cluster-txn");

    private static ProcessCluster cluster;

    @BeforeAll
    static void cluster() {
        cluster = NODES.cluster();
    }

    @Test
    void transactionsAcrossTheNodesCommitAndAbortAndReadCommittedSeesTheCommittedOnly() throws Exception {
        cluster.awaitAllServing(Duration.ofSeconds(60));
        String bootstrap = cluster.bootstrapServers(1);
        Groups.enableTransactionsV2(bootstrap);
        String topic = Groups.unique("cluster-txn");
        try (Admin admin = ProcessCluster.admin(bootstrap)) {
            admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all().get(30, TimeUnit.SECONDS);
            TopicDescription d = Groups.awaitTopic(admin, topic, PARTITIONS);
            Set<Integer> leaders = new HashSet<>();
            for (TopicPartitionInfo p : d.partitions()) {
                leaders.add(p.leader().id());
            }
            assertThat(leaders).containsExactlyInAnyOrder(1, 2, 3);
        }
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, Groups.unique("cluster-txn-id"));
        List<String> committed = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            producer.initTransactions();
            for (int t = 0; t < 6; t++) {
                boolean commit = t % 3 != 1;
                producer.beginTransaction();
                for (int i = 0; i < PARTITIONS * 3; i++) {
                    String value = "t" + t + "-" + i;
                    producer.send(new ProducerRecord<>(topic, i % PARTITIONS, null, value));
                    if (commit) {
                        committed.add(value);
                    }
                }
                if (commit) {
                    producer.commitTransaction();
                } else {
                    producer.abortTransaction();
                }
            }
        }
        assertThat(Groups.readValues(bootstrap, topic, PARTITIONS, true)).containsExactlyInAnyOrderElementsOf(committed);
        assertThat(Groups.readValues(cluster.bootstrapServers(3), topic, PARTITIONS, true))
                .containsExactlyInAnyOrderElementsOf(committed);
    }
}
