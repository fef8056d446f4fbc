package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Stock-client positioning and sizing cases: seeking by timestamp and to the end, batches of
 * several MiB read with a fetch limit smaller than one batch, and a topic with 128 partitions.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SeekBigBatchManyPartitionsCompatTest {

    private static final int MIB = 1024 * 1024;

    @RegisterExtension
    static final BrookCluster cluster = BrookCluster.perClass();

    private static KafkaProducer<byte[], byte[]> producer(Map<String, Object> extra) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.putAll(extra);
        return new KafkaProducer<>(p);
    }

    private static KafkaConsumer<byte[], byte[]> consumer(Map<String, Object> extra) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.putAll(extra);
        return new KafkaConsumer<>(p);
    }

    private static void createTopic(String topic, int partitions, Map<String, String> configs) throws Exception {
        try (Admin admin = Groups.admin(cluster.bootstrapServers())) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1).configs(configs)))
                    .all().get(30, TimeUnit.SECONDS);
            Groups.awaitTopic(admin, topic, partitions);
        }
    }

    /** Polls until {@code expected} records arrived (or the deadline passed) and returns them in arrival order. */
    private static List<ConsumerRecord<byte[], byte[]>> pollFor(KafkaConsumer<byte[], byte[]> consumer, int expected) {
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        Groups.pollUntil(Duration.ofSeconds(30), () -> out.size() + " of " + expected + " records",
                () -> consumer.poll(Duration.ofMillis(200)).forEach(out::add), () -> out.size() >= expected);
        return out;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static List<String> values(Collection<ConsumerRecord<byte[], byte[]>> records) {
        return records.stream().map(r -> new String(r.value(), StandardCharsets.UTF_8)).toList();
    }

    @Test
    void seekToATimestampReadsFromThatRecordOnAndSeekToEndReadsOnlyNewRecords() throws Exception {
        String topic = Groups.unique("seek-ts");
        createTopic(topic, 1, Map.of());
        TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaProducer<byte[], byte[]> producer = producer(Map.of())) {
            for (int i = 0; i < 20; i++) {
                // Create times 1000, 2000, ..., 20000: the first at or after 12 500 is offset 12.
                producer.send(new ProducerRecord<>(topic, 0, 1_000L * (i + 1), null, utf8("old-" + i))).get(30, TimeUnit.SECONDS);
            }
            try (KafkaConsumer<byte[], byte[]> consumer = consumer(Map.of())) {
                consumer.assign(Set.of(tp));
                OffsetAndTimestamp at = consumer.offsetsForTimes(Map.of(tp, 12_500L)).get(tp);
                assertThat(at.offset()).isEqualTo(12L);
                assertThat(at.timestamp()).isEqualTo(13_000L);
                consumer.seek(tp, at.offset());

                List<ConsumerRecord<byte[], byte[]>> fromTs = pollFor(consumer, 8);
                assertThat(fromTs.stream().map(ConsumerRecord::offset).toList())
                        .containsExactly(12L, 13L, 14L, 15L, 16L, 17L, 18L, 19L);
                assertThat(values(fromTs)).containsExactly(
                        "old-12", "old-13", "old-14", "old-15", "old-16", "old-17", "old-18", "old-19");
                assertThat(fromTs.stream().map(ConsumerRecord::timestamp).toList())
                        .allSatisfy(t -> assertThat(t).isGreaterThanOrEqualTo(12_500L));

                // Back to an old point, then to the end: only what is written after that is read.
                consumer.seek(tp, 3L);
                consumer.seekToEnd(Set.of(tp));
                assertThat(consumer.position(tp)).isEqualTo(20L);
                List<Future<RecordMetadata>> sent = new ArrayList<>();
                for (int i = 0; i < 5; i++) {
                    sent.add(producer.send(new ProducerRecord<>(topic, 0, null, utf8("new-" + i))));
                }
                producer.flush();
                for (int i = 0; i < 5; i++) {
                    assertThat(sent.get(i).get(30, TimeUnit.SECONDS).offset()).isEqualTo(20L + i);
                }
                List<ConsumerRecord<byte[], byte[]>> fresh = pollFor(consumer, 5);
                assertThat(values(fresh)).containsExactly("new-0", "new-1", "new-2", "new-3", "new-4");
                assertThat(fresh.stream().map(ConsumerRecord::offset).toList()).containsExactly(20L, 21L, 22L, 23L, 24L);
                assertThat(consumer.position(tp)).isEqualTo(25L);
            }
        }
    }

    @Test
    void batchesOfSeveralMibAreReadWholeWithAOneMibPartitionFetchLimit() throws Exception {
        String topic = Groups.unique("big-batch");
        createTopic(topic, 1, Map.of("max.message.bytes", Integer.toString(16 * MIB)));
        int n = 40;
        List<byte[]> payloads = new ArrayList<>();
        Random random = new Random(42);
        for (int i = 0; i < n; i++) {
            byte[] v = new byte[256 * 1024];
            random.nextBytes(v);
            payloads.add(v);
        }
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = producer(Map.of(
                ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(8 * MIB),
                ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(16 * MIB),
                ProducerConfig.BUFFER_MEMORY_CONFIG, Long.toString(64L * MIB),
                ProducerConfig.LINGER_MS_CONFIG, "100"))) {
            for (int i = 0; i < n; i++) {
                sent.add(producer.send(new ProducerRecord<>(topic, 0, utf8("k" + i), payloads.get(i))));
            }
            producer.flush();
            for (int i = 0; i < n; i++) {
                assertThat(sent.get(i).get(30, TimeUnit.SECONDS).offset()).isEqualTo(i);
            }
            // The case is only covered if the client really sent batches bigger than the fetch limit.
            double biggestBatch = producer.metrics().entrySet().stream()
                    .filter(e -> e.getKey().name().equals("batch-size-max") && e.getKey().group().equals("producer-metrics"))
                    .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
                    .findFirst().orElseThrow();
            assertThat(biggestBatch).isGreaterThan(4.0 * MIB);
        }
        TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(Map.of(
                ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(MIB),
                ConsumerConfig.FETCH_MAX_BYTES_CONFIG, Integer.toString(MIB)))) {
            consumer.assign(Set.of(tp));
            consumer.seekToBeginning(Set.of(tp));
            List<ConsumerRecord<byte[], byte[]>> got = pollFor(consumer, n);
            assertThat(got).hasSize(n);
            for (int i = 0; i < n; i++) {
                ConsumerRecord<byte[], byte[]> r = got.get(i);
                assertThat(r.offset()).isEqualTo(i);
                assertThat(r.key()).isEqualTo(utf8("k" + i));
                assertThat(Arrays.equals(r.value(), payloads.get(i))).as("payload of record %d", i).isTrue();
            }
        }
    }

    @Test
    void keyedRecordsOnA128PartitionTopicAreReadExactlyOnceInPartitionOrder() throws Exception {
        int partitions = 128;
        int perPartition = 6;
        String topic = Groups.unique("wide");
        createTopic(topic, partitions, Map.of());
        try (Admin admin = Groups.admin(cluster.bootstrapServers())) {
            TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
            assertThat(d.partitions()).hasSize(partitions);
            assertThat(d.partitions().stream().map(p -> p.partition()).toList())
                    .containsExactlyElementsOf(java.util.stream.IntStream.range(0, partitions).boxed().toList());
        }

        // Pick keys so that the client's default partitioner (murmur2 of the key) covers every partition.
        Map<Integer, List<String>> expected = new HashMap<>();
        List<String> keys = new ArrayList<>();
        for (int k = 0; expected.size() < partitions
                || expected.values().stream().anyMatch(l -> l.size() < perPartition); k++) {
            String key = "key-" + k;
            int partition = Utils.toPositive(Utils.murmur2(utf8(key))) % partitions;
            List<String> l = expected.computeIfAbsent(partition, x -> new ArrayList<>());
            if (l.size() < perPartition) {
                l.add(key);
                keys.add(key);
            }
        }
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = producer(Map.of(ProducerConfig.LINGER_MS_CONFIG, "5"))) {
            for (String key : keys) {
                sent.add(producer.send(new ProducerRecord<>(topic, utf8(key), utf8("value-of-" + key))));
            }
            producer.flush();
            for (int i = 0; i < keys.size(); i++) {
                String key = keys.get(i);
                RecordMetadata md = sent.get(i).get(30, TimeUnit.SECONDS);
                List<String> ofPartition = expected.get(md.partition());
                assertThat(ofPartition).as("partition of %s", key).contains(key);
                assertThat(md.offset()).as("offset of %s", key).isEqualTo(ofPartition.indexOf(key));
            }
        }

        List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            tps.add(new TopicPartition(topic, p));
        }
        Map<Integer, List<String>> read = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(Map.of())) {
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            for (ConsumerRecord<byte[], byte[]> r : pollFor(consumer, keys.size())) {
                List<String> l = read.computeIfAbsent(r.partition(), x -> new ArrayList<>());
                assertThat(r.offset()).as("offset in partition %d", r.partition()).isEqualTo(l.size());
                String key = new String(r.key(), StandardCharsets.UTF_8);
                assertThat(new String(r.value(), StandardCharsets.UTF_8)).isEqualTo("value-of-" + key);
                l.add(key);
            }
        }
        assertThat(read).isEqualTo(expected);
    }
}
