package io.brook.junit.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.junit.Broker;
import io.brook.junit.BrookTest;
import io.brook.junit.Clients;
import io.brook.server.Brook;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A consumer that commits after processing reads again, after the broker crashed (kill -9,
 * power cut) and came back, what it had processed but not committed yet: at least once, never
 * less. {@code crash()} keeps only what was fsynced; committed offsets are written durably, so
 * the group resumes from its last commit.
 */
@Timeout(120)
@BrookTest(perMethod = true, topics = "events")
class AtLeastOnceConsumerExampleTest {

    @Broker
    Brook brook;

    @Test
    void aConsumerResumesFromItsCommittedOffsetAfterACrashAndRestart() throws Exception {
        try (KafkaProducer<String, String> p = Clients.producer(brook.bootstrapServers(), Map.of())) {
            for (int i = 0; i < 6; i++) {
                p.send(new ProducerRecord<>("events", "r" + i)).get(30, TimeUnit.SECONDS);
            }
        }
        List<String> seen = new ArrayList<>();
        try (KafkaConsumer<String, String> c = Clients.consumer(brook.bootstrapServers(), "app")) {
            c.subscribe(List.of("events"));
            while (seen.size() < 6) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) {
                    seen.add(r.value());
                    if (seen.size() == 3) {
                        c.commitSync(Map.of(new TopicPartition("events", 0), new OffsetAndMetadata(r.offset() + 1)));
                    }
                }
            }
        }
        brook.crash();
        brook.start();
        List<String> again = new ArrayList<>();
        try (KafkaConsumer<String, String> c = Clients.consumer(brook.bootstrapServers(), "app")) {
            c.subscribe(List.of("events"));
            while (again.size() < 3) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) {
                    again.add(r.value());
                }
            }
        }
        // at least once: what was read after the last commit is read again, nothing before it
        assertThat(again).containsExactly("r3", "r4", "r5");
    }
}
