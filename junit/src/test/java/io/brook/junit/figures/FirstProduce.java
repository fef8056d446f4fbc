package io.brook.junit.figures;

import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The measured step of both start-up cases: a new producer (Kafka's defaults: acks=all,
 * idempotent) sends one record to topic "t" and waits for its acknowledgement; the moment it
 * arrives is kept for {@link StartupFigures}, which pairs it with the moment JUnit started the test.
 */
final class FirstProduce {
    private static final List<Long> ACKNOWLEDGED = new ArrayList<>();

    private FirstProduce() {
    }

    static void produce(String bootstrapServers) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>("t", "first")).get(60, TimeUnit.SECONDS);
            long acknowledged = System.nanoTime();
            synchronized (ACKNOWLEDGED) {
                ACKNOWLEDGED.add(acknowledged);
            }
        }
    }

    /** The moments of the acknowledgements so far (System.nanoTime()), in order. */
    static List<Long> acknowledged() {
        synchronized (ACKNOWLEDGED) {
            return List.copyOf(ACKNOWLEDGED);
        }
    }
}
