package io.brook.junit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** Stock kafka-clients with settings that keep the tests quick (short back-offs). */
public final class Clients {
    private Clients() {
    }

    public static KafkaProducer<String, String> producer(String bootstrap, Map<String, Object> overrides) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 20);
        p.put(ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, 200);
        p.put(ProducerConfig.RECONNECT_BACKOFF_MS_CONFIG, 20);
        p.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 200);
        p.putAll(overrides);
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    public static KafkaConsumer<String, String> consumer(String bootstrap, String group) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.RETRY_BACKOFF_MS_CONFIG, 20);
        p.put(ConsumerConfig.RECONNECT_BACKOFF_MS_CONFIG, 20);
        p.put(ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 200);
        return new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
    }

    /** Every value of {@code topic}'s partition 0 from offset 0, read with a plain assigned consumer. */
    public static List<String> readAll(String bootstrap, String topic, int expected) {
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> c = consumer(bootstrap, "reader-" + System.nanoTime())) {
            TopicPartition tp = new TopicPartition(topic, 0);
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (values.size() < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) {
                    values.add(r.value());
                }
            }
            // anything past what was expected (a duplicate) shows up in one more poll
            for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                values.add(r.value());
            }
        }
        return values;
    }
}
