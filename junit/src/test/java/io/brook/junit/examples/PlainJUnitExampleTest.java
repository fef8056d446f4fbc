package io.brook.junit.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.junit.Broker;
import io.brook.junit.BrookTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The whole set-up of a Kafka test without a framework: one annotation starts a broker for the
 * class with topic "orders" (3 partitions), and the test gets its address and an Admin injected.
 */
@Timeout(60)
@BrookTest(topics = "orders:3")
class PlainJUnitExampleTest {

    @Broker
    String bootstrapServers;

    @Test
    void anOrderSentIsAnOrderReceived(Admin admin) throws Exception {
        assertThat(admin.describeTopics(List.of("orders")).allTopicNames().get(30, TimeUnit.SECONDS).get("orders")
                .partitions()).hasSize(3);

        try (KafkaProducer<String, String> producer = new KafkaProducer<>(
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers),
                new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>("orders", "order-1", "2 apples")).get(30, TimeUnit.SECONDS);
        }

        List<ConsumerRecord<String, String>> received = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.GROUP_ID_CONFIG, "shipping",
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
                new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of("orders"));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (received.isEmpty() && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(100)).forEach(received::add);
            }
        }
        assertThat(received).singleElement().satisfies(r -> {
            assertThat(r.key()).isEqualTo("order-1");
            assertThat(r.value()).isEqualTo("2 apples");
        });
    }
}
