package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Future;
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
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The stock Java producer, consumer and admin client against Brook. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ProduceConsumeCompatTest {

    @RegisterExtension
    static final BrookCluster cluster = BrookCluster.perClass();

    private static String topicName() {
        return "compat-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static void createTopic(String topic, int partitions) throws Exception {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        try (Admin admin = Admin.create(p)) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
            assertThat(Groups.awaitTopic(admin, topic, partitions).partitions()).hasSize(partitions);
        }
    }

    private static KafkaProducer<String, String> producer(Map<String, Object> extra) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.putAll(extra);
        return new KafkaProducer<>(p);
    }

    private static KafkaConsumer<String, String> consumer() {
        return consumer(Map.of());
    }

    private static KafkaConsumer<String, String> consumer(Map<String, Object> extra) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.putAll(extra);
        return new KafkaConsumer<>(p);
    }

    private static List<ConsumerRecord<String, String>> readAll(String topic, int partitions, int expected) {
        List<ConsumerRecord<String, String>> out = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = consumer()) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int i = 0; i < partitions; i++) {
                tps.add(new TopicPartition(topic, i));
            }
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (out.size() < expected && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(500)).forEach(out::add);
            }
        }
        return out;
    }

    @Test
    void idempotentProducerWithAcksAllIsReadBackInOrder() throws Exception {
        String topic = topicName();
        createTopic(topic, 1);
        int n = 2_000;
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        try (KafkaProducer<String, String> producer = producer(Map.of(
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true",
                ProducerConfig.LINGER_MS_CONFIG, "5",
                ProducerConfig.BATCH_SIZE_CONFIG, "4096"))) {
            for (int i = 0; i < n; i++) {
                sent.add(producer.send(new ProducerRecord<>(topic, "k" + (i % 10), "v" + i)));
            }
            producer.flush();
            for (int i = 0; i < n; i++) {
                assertThat(sent.get(i).get().offset()).isEqualTo(i);
            }
        }
        List<ConsumerRecord<String, String>> got = readAll(topic, 1, n);
        assertThat(got).hasSize(n);
        for (int i = 0; i < n; i++) {
            assertThat(got.get(i).offset()).isEqualTo(i);
            assertThat(got.get(i).value()).isEqualTo("v" + i);
            assertThat(got.get(i).key()).isEqualTo("k" + (i % 10));
        }
    }

    @Test
    void compressedBatchesOfEveryCodecRoundTrip() throws Exception {
        for (String codec : List.of("gzip", "snappy", "lz4", "zstd")) {
            String topic = topicName();
            createTopic(topic, 2);
            int n = 300;
            try (KafkaProducer<String, String> producer = producer(Map.of(
                    ProducerConfig.COMPRESSION_TYPE_CONFIG, codec, ProducerConfig.LINGER_MS_CONFIG, "5"))) {
                for (int i = 0; i < n; i++) {
                    producer.send(new ProducerRecord<>(topic, i % 2, null, codec + "-" + i));
                }
                producer.flush();
            }
            List<ConsumerRecord<String, String>> got = readAll(topic, 2, n);
            assertThat(got).as(codec).hasSize(n);
            assertThat(got.stream().map(ConsumerRecord::value).toList()).as(codec)
                    .containsExactlyInAnyOrderElementsOf(java.util.stream.IntStream.range(0, n)
                            .mapToObj(i -> codec + "-" + i).toList());
        }
    }

    @Test
    void consumerWaitingAtTheEndIsWokenByNewData() throws Exception {
        String topic = topicName();
        createTopic(topic, 1);
        try (KafkaConsumer<String, String> consumer = consumer();
                KafkaProducer<String, String> producer = producer(Map.of(ProducerConfig.ACKS_CONFIG, "1"))) {
            TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(Set.of(tp));
            consumer.seekToEnd(Set.of(tp));
            assertThat(consumer.position(tp)).isZero();
            producer.send(new ProducerRecord<>(topic, "late")).get();
            List<ConsumerRecord<String, String>> got = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (got.isEmpty() && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofSeconds(5)).forEach(got::add);
            }
            assertThat(got).singleElement().satisfies(r -> assertThat(r.value()).isEqualTo("late"));
        }
    }

    @Test
    void listOffsetsAnswersEarliestLatestAndByTimestamp() throws Exception {
        String topic = topicName();
        createTopic(topic, 1);
        long t0;
        try (KafkaProducer<String, String> producer = producer(Map.of())) {
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>(topic, 0, 1_000L * (i + 1), null, "v" + i)).get();
            }
            t0 = 5_500L;
        }
        try (KafkaConsumer<String, String> consumer = consumer()) {
            TopicPartition tp = new TopicPartition(topic, 0);
            assertThat(consumer.beginningOffsets(Set.of(tp)).get(tp)).isZero();
            assertThat(consumer.endOffsets(Set.of(tp)).get(tp)).isEqualTo(10L);
            assertThat(consumer.offsetsForTimes(Map.of(tp, t0)).get(tp).offset()).isEqualTo(5L);
            assertThat(consumer.offsetsForTimes(Map.of(tp, 999_999L)).get(tp)).isNull();
        }
    }

    @Test
    void producerCreatesAMissingTopicThroughMetadata() throws Exception {
        String topic = topicName();
        try (KafkaProducer<String, String> producer = producer(Map.of())) {
            RecordMetadata md = producer.send(new ProducerRecord<>(topic, "first")).get(30, TimeUnit.SECONDS);
            assertThat(md.offset()).isZero();
            assertThat(md.partition()).isZero();
        }
        assertThat(readAll(topic, 1, 1)).singleElement().satisfies(r -> assertThat(r.value()).isEqualTo("first"));
    }

    @Test
    void readCommittedConsumerSeesEverythingWithoutTransactions() throws Exception {
        String topic = topicName();
        createTopic(topic, 1);
        try (KafkaProducer<String, String> producer = producer(Map.of())) {
            for (int i = 0; i < 50; i++) {
                producer.send(new ProducerRecord<>(topic, "rc-" + i));
            }
            producer.flush();
        }
        try (KafkaConsumer<String, String> consumer = consumer(Map.of(ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                "read_committed"))) {
            TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(Set.of(tp));
            consumer.seekToBeginning(Set.of(tp));
            assertThat(consumer.endOffsets(Set.of(tp)).get(tp)).isEqualTo(50L);
            List<String> got = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (got.size() < 50 && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(500)).forEach(r -> got.add(r.value()));
            }
            assertThat(got).containsExactlyElementsOf(java.util.stream.IntStream.range(0, 50)
                    .mapToObj(i -> "rc-" + i).toList());
        }
    }
}
