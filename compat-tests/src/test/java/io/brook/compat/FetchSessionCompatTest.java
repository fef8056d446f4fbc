package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.brook.server.Brook;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stock Java consumer keeps one incremental fetch session (KIP-227) over 1,000 partitions:
 * once the first full fetch opened it, each fetch request names only the partitions whose
 * position moved. Measured from the consumer's own per-broker counters (bytes and requests
 * sent to the broker's node), so the test runs against any broker.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FetchSessionCompatTest {

    private static final int PARTITIONS = 1000;

    @RegisterExtension
    static final BrookCluster cluster = BrookCluster.perClass();

    /** Bytes and requests the consumer sent to the broker (not the bootstrap connection). */
    private record Sent(double bytes, double requests) {
        static Sent of(KafkaConsumer<?, ?> consumer) {
            double bytes = 0;
            double requests = 0;
            for (Map.Entry<MetricName, ? extends Metric> e : consumer.metrics().entrySet()) {
                MetricName n = e.getKey();
                String node = n.tags().get("node-id");
                if (!n.group().equals("consumer-node-metrics") || node == null || node.startsWith("node--")) {
                    continue;
                }
                if (n.name().equals("outgoing-byte-total")) {
                    bytes += (Double) e.getValue().metricValue();
                } else if (n.name().equals("request-total")) {
                    requests += (Double) e.getValue().metricValue();
                }
            }
            return new Sent(bytes, requests);
        }
    }

    @Test
    void consumerOfAThousandPartitionsSendsIncrementalFetches() throws Exception {
        String topic = Groups.unique("sessions");
        Groups.createTopic(cluster.bootstrapServers(), topic, PARTITIONS);
        List<TopicPartition> all = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            all.add(new TopicPartition(topic, p));
        }
        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        Properties cp = new Properties();
        cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        cp.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        cp.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        cp.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "50");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(pp);
                KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(cp)) {
            // one record in every partition first: Kafka makes a new topic's partitions writable and
            // readable a moment after its metadata shows them (NOT_LEADER_OR_FOLLOWER until then,
            // which would make the consumer rebuild its session inside the measured window)
            for (TopicPartition tp : all) {
                var unused = producer.send(new ProducerRecord<>(topic, tp.partition(), null, bytes("prime")));
            }
            producer.flush();
            consumer.assign(all);
            consumer.seekToEnd(all);
            for (TopicPartition tp : all) {
                consumer.position(tp, Duration.ofSeconds(30));
            }
            producer.send(new ProducerRecord<>(topic, 0, null, bytes("first"))).get(30, TimeUnit.SECONDS);
            List<ConsumerRecord<byte[], byte[]>> got = new ArrayList<>();
            Groups.pollUntil(Duration.ofSeconds(30), () -> "the first record", () -> consumer.poll(Duration.ofMillis(100))
                    .forEach(got::add), () -> !got.isEmpty());
            Sent before = Sent.of(consumer);

            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>(topic, (i * 97) % PARTITIONS, null, bytes("r" + i)))
                        .get(30, TimeUnit.SECONDS);
            }
            Groups.pollUntil(Duration.ofSeconds(30), () -> got.size() + " of 11 records",
                    () -> consumer.poll(Duration.ofMillis(100)).forEach(got::add), () -> got.size() >= 11);
            // a few more long polls with nothing new
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
            while (System.nanoTime() < until) {
                consumer.poll(Duration.ofMillis(50)).forEach(got::add);
            }
            Sent after = Sent.of(consumer);

            double requests = after.requests() - before.requests();
            double perRequest = (after.bytes() - before.bytes()) / requests;
            assertThat(got).hasSize(11);
            assertThat(requests).as("fetches sent").isGreaterThanOrEqualTo(3);
            // a full fetch of 1,000 partitions is over 20 KB; an incremental one names a few partitions
            assertThat(perRequest).as("bytes per request over %s requests", requests).isLessThan(1_000);
        }
    }

    /**
     * A restarted broker has no sessions: the consumer starts over with a full fetch (the Java
     * client does so after a lost connection; a fetch naming the old session would be told
     * FETCH_SESSION_ID_NOT_FOUND, see the server's FetchSessionsTest) and reads on without a gap.
     */
    @Test
    void consumerReadsOnAfterTheBrokerRestartedWithoutItsSession(@TempDir Path dir) throws Exception {
        assumeTrue(System.getProperty("bootstrap.servers") == null, "needs an embedded broker to restart");
        Brook first = Brook.builder().port(0).dataDir(dir).start();
        int port = first.port();
        Brook second = null;
        String topic = "session-restart";
        Groups.createTopic(first.bootstrapServers(), topic, 10);
        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, first.bootstrapServers());
        pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        pp.put(ProducerConfig.RECONNECT_BACKOFF_MS_CONFIG, "50");
        pp.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "200");
        Properties cp = new Properties();
        cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, first.bootstrapServers());
        cp.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        cp.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        cp.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "50");
        cp.put(ConsumerConfig.RECONNECT_BACKOFF_MS_CONFIG, "50");
        cp.put(ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "200");
        List<String> got = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(pp);
                KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(cp)) {
            List<TopicPartition> all = new ArrayList<>();
            for (int p = 0; p < 10; p++) {
                all.add(new TopicPartition(topic, p));
            }
            consumer.assign(all);
            producer.send(new ProducerRecord<>(topic, 3, null, bytes("before"))).get(30, TimeUnit.SECONDS);
            Groups.pollUntil(Duration.ofSeconds(30), () -> "the record before the restart",
                    () -> consumer.poll(Duration.ofMillis(100)).forEach(r -> got.add(utf8(r.value()))),
                    () -> got.size() == 1);
            // a few incremental fetches of the session
            for (int i = 0; i < 3; i++) {
                consumer.poll(Duration.ofMillis(60)).forEach(r -> got.add(utf8(r.value())));
            }
            first.close();
            second = Brook.builder().port(port).dataDir(dir).start();
            producer.send(new ProducerRecord<>(topic, 7, null, bytes("after"))).get(30, TimeUnit.SECONDS);
            Groups.pollUntil(Duration.ofSeconds(30), () -> "the record after the restart",
                    () -> consumer.poll(Duration.ofMillis(100)).forEach(r -> got.add(utf8(r.value()))),
                    () -> got.size() >= 2);
            assertThat(got).containsExactly("before", "after");
        } finally {
            first.close();
            if (second != null) {
                second.close();
            }
        }
    }

    private static String utf8(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
