package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.Brook;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Transactions V2 with a kafka-clients 4.4 producer that pipelines, as the bench's transactions
 * workload does: five requests in flight, linger 5 ms, acks=all, 1 KiB records round-robin over
 * four partitions, a commit after every 200. Each transaction starts at a new epoch, so its first
 * requests reach partitions not yet added to it, several at a time. Every transaction commits and
 * a read_committed consumer reads each record exactly once.
 *
 * <p>The embedded Brook runs without fault hooks: their segment channels cannot be sent with
 * sendfile(2), and this test reads megabytes back.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TransactionsV2PipelinedCompatTest {

    private static final int PARTITIONS = 4;

    private static Brook brook;
    private static String bootstrap;

    @BeforeAll
    static void start() throws Exception {
        String external = System.getProperty("bootstrap.servers");
        if (external != null && !external.isBlank()) {
            bootstrap = external;
        } else {
            brook = Brook.builder().port(0).config(Groups.BROKER_CONFIGS).start();
            bootstrap = brook.bootstrapServers();
        }
        Groups.enableTransactionsV2(bootstrap);
    }

    @AfterAll
    static void stop() {
        if (brook != null) {
            brook.close();
        }
    }

    @Test
    void pipelinedTransactionsCommitExactlyOnce() throws Exception {
        String topic = Groups.unique("v2-pipelined");
        Groups.createTopic(bootstrap, topic, PARTITIONS);
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, Groups.unique("v2-pipelined-txn"));
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
        String pad = "x".repeat(1000);
        List<String> committed = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            producer.initTransactions();
            for (int t = 0; t < 8; t++) {
                producer.beginTransaction();
                for (int i = 0; i < 200; i++) {
                    String value = t + "-" + i + "-" + pad;
                    committed.add(value);
                    producer.send(new ProducerRecord<>(topic, i % PARTITIONS, null, value));
                }
                producer.commitTransaction();
            }
        }
        assertThat(readCommitted(topic)).containsExactlyInAnyOrderElementsOf(committed);
    }

    /** Every value of the topic a read_committed consumer reads up to the end. */
    private static List<String> readCommitted(String topic) {
        return Groups.readValues(bootstrap, topic, PARTITIONS, true);
    }
}
