package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A broker built with fault hooks reads its segments through the hooks' file channel, which the
 * native sendfile of the epoll transport cannot use (it takes the descriptor out of the JDK's own
 * channel class, and on another class crashes the JVM). Fetch answers of several MiB must reach a
 * stock consumer all the same.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FaultHooksLargeFetchTest {

    @Test
    void aBrokerWithFaultHooksServesLargeFetches() throws Exception {
        try (Brook brook = Brook.builder().port(0).faults(true).start()) {
            brook.createTopic("big", 1);
            byte[] value = new byte[64 * 1024];
            int records = 64; // 4 MiB
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, brook.bootstrapServers(),
                    ProducerConfig.BATCH_SIZE_CONFIG, 1 << 20,
                    ProducerConfig.LINGER_MS_CONFIG, 5), new ByteArraySerializer(), new ByteArraySerializer())) {
                for (int i = 0; i < records; i++) {
                    producer.send(new ProducerRecord<>("big", 0, null, value));
                }
                producer.flush();
            }
            TopicPartition tp = new TopicPartition("big", 0);
            int read = 0;
            try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                    ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, brook.bootstrapServers(),
                    ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 8 << 20,
                    ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 8 << 20), new ByteArrayDeserializer(),
                    new ByteArrayDeserializer())) {
                consumer.assign(List.of(tp));
                consumer.seekToBeginning(List.of(tp));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (read < records && System.nanoTime() < deadline) {
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                        assertThat(r.value()).hasSize(value.length);
                        read++;
                    }
                }
            }
            assertThat(read).isEqualTo(records);
        }
    }
}
