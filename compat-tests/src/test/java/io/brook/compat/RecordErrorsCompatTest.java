package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A batch some of whose records the broker refuses (KIP-467): a stock Java producer learns which
 * records were at fault from Produce's {@code record_errors} and fails those with the broker's
 * reason, and the others of the batch with "part of a batch which had one more more invalid
 * records", so that an application can tell them apart. Every record at fault is named, not only
 * the first, as Kafka does.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RecordErrorsCompatTest {

    private static final String DIFFERENT_RECORD =
            "Failed to append record because it was part of a batch which had one more more invalid records";

    @RegisterExtension
    static final BrookCluster cluster = BrookCluster.perClass();

    /** The outcome of each record, sent in one batch: null for success, else the exception. */
    private static List<Throwable> sendInOneBatch(String topic, List<ProducerRecord<byte[], byte[]>> records)
            throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.LINGER_MS_CONFIG, "60000"); // one batch, sent by flush()
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        p.put(ProducerConfig.RETRIES_CONFIG, "0");
        List<Throwable> outcomes = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (ProducerRecord<byte[], byte[]> r : records) {
                sent.add(producer.send(r));
            }
            producer.flush();
            for (Future<RecordMetadata> f : sent) {
                try {
                    f.get(30, TimeUnit.SECONDS);
                    outcomes.add(null);
                } catch (ExecutionException e) {
                    outcomes.add(e.getCause());
                }
            }
        }
        return outcomes;
    }

    private static String createTopic(String prefix, Map<String, String> configs) throws Exception {
        String topic = Groups.unique(prefix);
        try (Admin admin = Groups.admin(cluster.bootstrapServers())) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1).configs(configs))).all()
                    .get(30, TimeUnit.SECONDS);
            Groups.awaitTopic(admin, topic, 1);
        }
        return topic;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void everyKeylessRecordOfABatchOnACompactedTopicIsNamed() throws Exception {
        String topic = createTopic("keyless", Map.of("cleanup.policy", "compact"));
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            records.add(new ProducerRecord<>(topic, 0, i % 4 == 0 ? null : bytes("k" + i), bytes("v" + i)));
        }
        List<Throwable> outcomes = sendInOneBatch(topic, records);

        for (int i = 0; i < 10; i++) {
            Throwable t = outcomes.get(i);
            if (i % 4 == 0) {
                assertThat(t).as("record %d", i).isInstanceOf(InvalidRecordException.class)
                        .hasMessage("Compacted topic cannot accept message without key in topic partition "
                                + topic + "-0");
            } else {
                assertThat(t).as("record %d", i).isExactlyInstanceOf(KafkaException.class).hasMessage(DIFFERENT_RECORD);
            }
        }
    }

    @Test
    void everyRecordWithATimestampOutOfRangeIsNamedWithItsOwnReason() throws Exception {
        String topic = createTopic("old", Map.of("message.timestamp.before.max.ms", "60000"));
        long now = System.currentTimeMillis();
        long old = now - 3_600_000L;
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            records.add(new ProducerRecord<>(topic, 0, i == 1 || i == 3 ? old : now, bytes("k"), bytes("v" + i)));
        }
        List<Throwable> outcomes = sendInOneBatch(topic, records);

        for (int i = 0; i < 5; i++) {
            Throwable t = outcomes.get(i);
            if (i == 1 || i == 3) {
                assertThat(t).as("record %d", i).isInstanceOf(InvalidRecordException.class)
                        .hasMessageMatching("Timestamp " + old + " of message with offset " + i
                                + " is out of range\\. The timestamp should be within \\[\\d+, \\d+\\]");
            } else {
                assertThat(t).as("record %d", i).isExactlyInstanceOf(KafkaException.class).hasMessage(DIFFERENT_RECORD);
            }
        }
    }
}
