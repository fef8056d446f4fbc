package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.brook.server.Brook;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
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
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker restart under a running idempotent producer: acknowledged data survives, the producer
 * reconnects and carries on, and nothing is duplicated or lost.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RestartCompatTest {

    @TempDir
    Path dir;

    @Test
    void idempotentProducerCarriesOnAcrossABrokerRestart() throws Exception {
        assumeTrue(System.getProperty("bootstrap.servers") == null, "needs an embedded broker to restart");
        Brook first = Brook.builder().port(0).dataDir(dir).start();
        int port = first.port();
        String topic = "restart";
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, first.bootstrapServers());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.RECONNECT_BACKOFF_MS_CONFIG, "50");
        p.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "200");
        Brook second = null;
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            for (int i = 0; i < 100; i++) {
                producer.send(new ProducerRecord<>(topic, 0, null, "before-" + i)).get(30, TimeUnit.SECONDS);
            }
            first.close();
            second = Brook.builder().port(port).dataDir(dir).start();
            List<Future<RecordMetadata>> after = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                after.add(producer.send(new ProducerRecord<>(topic, 0, null, "after-" + i)));
            }
            producer.flush();
            for (int i = 0; i < 100; i++) {
                assertThat(after.get(i).get(30, TimeUnit.SECONDS).offset()).isEqualTo(100L + i);
            }
            Properties c = new Properties();
            c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, second.bootstrapServers());
            c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
            c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
            c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
            List<String> values = new ArrayList<>();
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c)) {
                TopicPartition tp = new TopicPartition(topic, 0);
                consumer.assign(List.of(tp));
                consumer.seekToBeginning(List.of(tp));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (values.size() < 200 && System.nanoTime() < deadline) {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                        values.add(r.value());
                    }
                }
            }
            assertThat(values).hasSize(200);
            for (int i = 0; i < 100; i++) {
                assertThat(values.get(i)).isEqualTo("before-" + i);
                assertThat(values.get(100 + i)).isEqualTo("after-" + i);
            }
        } finally {
            first.close();
            if (second != null) {
                second.close();
            }
        }
    }

    /**
     * Like the case above with the producer pipelining: up to five requests of small batches in
     * flight while the broker stops and starts again, so requests in flight are lost with their
     * connection and re-sent. Sequence numbers must make every record land exactly once, in order.
     */
    @Test
    void pipelinedIdempotentProducerWritesEachRecordOnceAcrossABrokerRestart() throws Exception {
        assumeTrue(System.getProperty("bootstrap.servers") == null, "needs an embedded broker to restart");
        Brook first = Brook.builder().port(0).dataDir(dir).start();
        int port = first.port();
        String topic = "restart-pipelined";
        int n = 3_000;
        Properties p = Groups.pipelinedIdempotentProducerProps(first.bootstrapServers());
        Brook second = null;
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            // Warm up: the producer id and the topic exist before the stream that the restart cuts.
            producer.send(new ProducerRecord<>(topic, 0, null, "v-0")).get(30, TimeUnit.SECONDS);
            for (int i = 1; i < n / 2; i++) {
                sent.add(producer.send(new ProducerRecord<>(topic, 0, null, "v-" + i)));
            }
            // Stop while the first half is still being written (whatever is in flight is cut off)
            // and start again at once; the second half is queued behind the re-sent requests.
            first.close();
            second = Brook.builder().port(port).dataDir(dir).start();
            for (int i = n / 2; i < n; i++) {
                sent.add(producer.send(new ProducerRecord<>(topic, 0, null, "v-" + i)));
            }
            producer.flush();
            // The case is only covered if requests were really re-sent after the restart.
            double retried = producer.metrics().entrySet().stream()
                    .filter(e -> e.getKey().name().equals("record-retry-total") && e.getKey().group().equals("producer-metrics"))
                    .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
                    .findFirst().orElseThrow();
            assertThat(retried).as("records the producer re-sent").isPositive();
            for (int i = 0; i < sent.size(); i++) {
                assertThat(sent.get(i).get(30, TimeUnit.SECONDS).offset()).isEqualTo(i + 1L);
            }
            Properties c = new Properties();
            c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, second.bootstrapServers());
            c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
            c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
            c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
            List<String> values = new ArrayList<>();
            TopicPartition tp = new TopicPartition(topic, 0);
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c)) {
                consumer.assign(List.of(tp));
                consumer.seekToBeginning(List.of(tp));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (values.size() < n && System.nanoTime() < deadline) {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                        values.add(r.value());
                    }
                }
                assertThat(consumer.endOffsets(List.of(tp)).get(tp)).isEqualTo((long) n);
            }
            assertThat(values).containsExactlyElementsOf(
                    java.util.stream.IntStream.range(0, n).mapToObj(i -> "v-" + i).toList());
        } finally {
            first.close();
            if (second != null) {
                second.close();
            }
        }
    }
}
