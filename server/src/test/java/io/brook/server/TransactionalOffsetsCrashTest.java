package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Consume-transform-produce with the stock clients and {@code sendOffsetsToTransaction} across a
 * crash of the broker (kill -9 and power cut: writes no fsync covered are lost). The transactional
 * offsets are in {@code __consumer_offsets} as soon as TxnOffsetCommit is answered, so a commit
 * acknowledged before the crash has its offsets after it, and a transaction left open by the crash
 * can still be committed with them: the committed offsets always match the committed output.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class TransactionalOffsetsCrashTest {

    private static final int RECORDS = 10;
    /** The machine may be busy: the broker restarts and the clients reconnect within this. */
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    private Brook brook;
    private Admin admin;

    @BeforeEach
    void start() throws Exception {
        int port = io.brook.testkit.FreePorts.next(); // the same port after the restart, for the clients that live through it
        brook = Brook.builder().port(port).dataDir(dir).faults(true)
                .config("transaction.state.log.num.partitions", "3").config("offsets.topic.num.partitions", "3")
                .config("group.initial.rebalance.delay.ms", "0")
                .start();
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, brook.bootstrapServers(),
                AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "100"));
        admin.createTopics(List.of(new NewTopic("in", 1, (short) 1), new NewTopic("out", 1, (short) 1))).all().get();
        Properties p = producerProps(null);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            for (int i = 0; i < RECORDS; i++) producer.send(new ProducerRecord<>("in", 0, "k" + i, "v" + i)).get();
        }
    }

    @AfterEach
    void stop() {
        if (admin != null) admin.close(Duration.ZERO);
        if (brook != null) brook.close();
    }

    private Properties producerProps(String transactionalId) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, brook.bootstrapServers());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
        p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "20");
        p.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "100");
        if (transactionalId != null) p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        return p;
    }

    private KafkaConsumer<String, String> consumer() {
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, brook.bootstrapServers());
        c.put(ConsumerConfig.GROUP_ID_CONFIG, "ctp");
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "100");
        c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        return new KafkaConsumer<>(c);
    }

    /** Polls the input once it has records, sends their transformation and their offsets in the producer's transaction. */
    private static int transformOneBatch(KafkaConsumer<String, String> consumer, KafkaProducer<String, String> producer) {
        List<ConsumerRecord<String, String>> batch = new ArrayList<>();
        Await.until("records to transform", () -> {
            ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(100));
            records.forEach(batch::add);
            return !batch.isEmpty();
        });
        producer.beginTransaction();
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (ConsumerRecord<String, String> r : batch) {
            producer.send(new ProducerRecord<>("out", 0, r.key(), r.value().toUpperCase()));
            offsets.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
        }
        producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
        return batch.size();
    }

    /** The group's committed offset of the input, asked with require_stable (no pending transactional offset). */
    private long committed() throws Exception {
        OffsetAndMetadata o = admin.listConsumerGroupOffsets("ctp", new ListConsumerGroupOffsetsOptions().requireStable(true))
                .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS).get(new TopicPartition("in", 0));
        return o == null ? -1 : o.offset();
    }

    /** The committed output, as a read_committed consumer sees it. */
    private List<String> output() {
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, brook.bootstrapServers());
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> reader = new KafkaConsumer<>(c)) {
            TopicPartition tp = new TopicPartition("out", 0);
            reader.assign(List.of(tp));
            reader.seekToBeginning(List.of(tp));
            long end = reader.endOffsets(List.of(tp)).get(tp);
            Await.until("the output up to its end", () -> {
                reader.poll(Duration.ofMillis(100)).forEach(r -> values.add(r.value()));
                return reader.position(tp) >= end;
            });
        }
        return values;
    }

    private static boolean settles(java.util.concurrent.Callable<Boolean> check) {
        try {
            return check.call();
        } catch (Exception e) {
            return false; // the broker is still coming back, or the offsets are still pending
        }
    }

    @Test
    void offsetsOfACommitAcknowledgedBeforeTheCrashAreThereAfterIt() throws Exception {
        int transformed;
        try (KafkaConsumer<String, String> consumer = consumer();
             KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps("ctp-tx"))) {
            producer.initTransactions();
            consumer.assign(List.of(new TopicPartition("in", 0)));
            transformed = transformOneBatch(consumer, producer);
            producer.commitTransaction();
            // the commit is acknowledged: crash at once, before the markers are (all) written
            brook.crash();
            consumer.close(Duration.ZERO);
        }
        brook.start();
        Await.until("the committed offsets are back after the crash", WAIT, () -> settles(() -> committed() == transformed));
        assertThat(output()).hasSize(transformed);
    }

    @Test
    void aTransactionOpenAtTheCrashCommitsAfterItWithItsOffsets() throws Exception {
        int transformed;
        try (KafkaConsumer<String, String> consumer = consumer();
             KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps("ctp-tx"))) {
            producer.initTransactions();
            consumer.assign(List.of(new TopicPartition("in", 0)));
            transformed = transformOneBatch(consumer, producer);
            consumer.close(Duration.ZERO);
            brook.crash(); // before EndTxn
            brook.start();
            // the transaction is still open with its output and its offsets: the producer commits it
            producer.commitTransaction();
        }
        Await.until("the committed offsets", WAIT, () -> settles(() -> committed() == transformed));
        assertThat(output()).hasSize(transformed);
        // a new instance of the application starts after the transformed input: nothing is processed twice
        try (KafkaConsumer<String, String> consumer = consumer()) {
            TopicPartition in = new TopicPartition("in", 0);
            consumer.assign(List.of(in));
            assertThat(consumer.position(in)).isEqualTo(transformed);
        }
    }
}
