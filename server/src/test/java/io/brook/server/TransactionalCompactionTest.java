package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A compacted topic written in transactions, half of them aborted, as a Kafka Streams changelog
 * is after failures: once compacted with {@code delete.retention.ms=0}, the ABORT markers are
 * gone with their entries in the partition's aborted-transaction list (the log shrinks below
 * what the markers alone would take), and a read_committed consumer still reads the newest
 * committed value of every key, before and after a restart. An entry left without its marker
 * would make the consumer drop the producer's later committed batches.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TransactionalCompactionTest {

    private static final int TRANSACTIONS = 200;
    private static final int KEYS = 10;
    private static final String TOPIC = "changelog";
    /** At least the size of an ABORT marker batch (one control record). */
    private static final int MARKER_BYTES = 70;

    @TempDir
    Path dir;

    @Test
    void abortMarkersGoAfterDeleteRetentionAndReadCommittedStillSeesEveryCommittedValue() throws Exception {
        try (Brook brook = Brook.builder().port(0).dataDir(dir).config(Map.of("log.cleaner.backoff.ms", "20")).start()) {
            Properties ap = new Properties();
            ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brook.bootstrapServers());
            Map<String, String> expected = new HashMap<>();
            try (Admin admin = Admin.create(ap)) {
                admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1).configs(Map.of(
                        "cleanup.policy", "compact", "segment.ms", "5", "delete.retention.ms", "0",
                        "min.cleanable.dirty.ratio", "0.01")))).all().get(30, TimeUnit.SECONDS);
                try (KafkaProducer<String, String> producer = producer(brook.bootstrapServers(), "writer")) {
                    producer.initTransactions();
                    for (int i = 0; i < TRANSACTIONS; i++) {
                        String key = "k" + (i / 2 % KEYS);
                        producer.beginTransaction();
                        producer.send(new ProducerRecord<>(TOPIC, key, (i % 2 == 0 ? "committed-" : "aborted-") + i));
                        if (i % 2 == 0) {
                            producer.commitTransaction();
                            expected.put(key, "committed-" + i);
                        } else {
                            producer.abortTransaction();
                        }
                    }
                }
                // later writes of one other key roll the segments behind them (segment.ms), so
                // that the cleaner takes every transaction, and then its markers' horizons pass
                try (KafkaProducer<String, String> filler = producer(brook.bootstrapServers(), null)) {
                    int[] n = {0};
                    Await.until("the aborted transactions' markers compacted away", Duration.ofSeconds(60), () -> {
                        try {
                            filler.send(new ProducerRecord<>(TOPIC, "filler", Integer.toString(n[0]++))).get();
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                        return size(admin) < TRANSACTIONS / 2 * MARKER_BYTES / 2;
                    });
                    expected.put("filler", Integer.toString(n[0] - 1));
                }
                assertThat(readCommitted(brook.bootstrapServers())).isEqualTo(expected);
            }
            brook.restart();
            assertThat(readCommitted(brook.bootstrapServers())).as("after a restart").isEqualTo(expected);
        }
    }

    private static KafkaProducer<String, String> producer(String bootstrap, String transactionalId) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        if (transactionalId != null) {
            p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        }
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    /** The newest value of every key a read_committed consumer reads up to the end of the log. */
    private static Map<String, String> readCommitted(String bootstrap) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        Map<String, String> latest = new HashMap<>();
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            long end = c.endOffsets(List.of(tp)).get(tp);
            Await.until("reading " + TOPIC + " up to " + end, Duration.ofSeconds(30), () -> {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) {
                    latest.put(r.key(), r.value());
                }
                return c.position(tp) >= end;
            });
        }
        return latest;
    }

    private static long size(Admin admin) {
        try {
            return admin.describeLogDirs(List.of(1)).allDescriptions().get(30, TimeUnit.SECONDS).get(1).values()
                    .iterator().next().replicaInfos().get(new TopicPartition(TOPIC, 0)).size();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
