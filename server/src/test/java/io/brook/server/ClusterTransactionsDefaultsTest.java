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
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Transactions across the nodes of a three-node cluster with the settings a user starts with:
 * the default 50 partitions of {@code __transaction_state}, the producer's default linger and
 * time-outs, one bootstrap node, records sent without waiting for them before the transaction
 * ends, commits and aborts in a row (Kafka 4's Java producer, so transactions V2). The markers of
 * a transaction go to other nodes, so the producer's next transaction often starts, fails to add
 * its partitions and is aborted while they are being written: the producer must not be fenced
 * for that, and a read_committed consumer sees exactly the committed records.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ClusterTransactionsDefaultsTest extends InJvmClusterTest {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String TOPIC = "txn-defaults";
    private static final int PARTITIONS = 6;

    private Properties props() {
        Properties p = new Properties();
        p.put("bootstrap.servers", cluster.nodes.get(0).bootstrapServers());
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", StringSerializer.class.getName());
        p.put("key.deserializer", StringDeserializer.class.getName());
        p.put("value.deserializer", StringDeserializer.class.getName());
        return p;
    }

    @Test
    void transactionsWithDefaultSettingsAndOneBootstrapNode() throws Exception {
        cluster = InJvmCluster.start(dirs, "brook-cluster-txn-defaults", 3, Map.of());
        try (Admin admin = Admin.create(props())) {
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get();
            Await.until("every partition with a leader", WAIT, () -> {
                try {
                    TopicDescription d = admin.describeTopics(List.of(TOPIC)).allTopicNames().get().get(TOPIC);
                    return d.partitions().stream().allMatch(p -> p.leader() != null);
                } catch (Exception e) {
                    return false;
                }
            });
        }
        Properties pp = props();
        pp.put("transactional.id", "tx-defaults");
        Set<String> expected = new TreeSet<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp)) {
            producer.initTransactions();
            for (int t = 0; t < 4; t++) {
                producer.beginTransaction();
                for (int p = 0; p < PARTITIONS; p++) {
                    producer.send(new ProducerRecord<>(TOPIC, p, null, "t" + t + "-" + p));
                }
                if (t % 2 == 1) {
                    producer.abortTransaction();
                } else {
                    producer.commitTransaction();
                    for (int p = 0; p < PARTITIONS; p++) {
                        expected.add("t" + t + "-" + p);
                    }
                }
            }
        }
        Properties cp = props();
        cp.put("isolation.level", "read_committed");
        List<TopicPartition> tps = new ArrayList<>();
        for (int i = 0; i < PARTITIONS; i++) {
            tps.add(new TopicPartition(TOPIC, i));
        }
        Set<String> seen = new TreeSet<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp)) {
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            Map<TopicPartition, Long> ends = consumer.endOffsets(tps);
            Await.until("positions at the ends", WAIT, () -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                    seen.add(r.value());
                }
                return tps.stream().allMatch(tp -> consumer.position(tp) >= ends.get(tp));
            });
        }
        assertThat(seen).isEqualTo(expected);
    }
}
