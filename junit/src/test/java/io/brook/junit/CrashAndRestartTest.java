package io.brook.junit;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.Brook;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(120)
@BrookTest(perMethod = true, topics = "events")
class CrashAndRestartTest {

    @Broker
    Brook brook;

    @Test
    void acksAllRecordsSurviveACrashAndUnforcedAcksOneRecordsDoNot() throws Exception {
        try (KafkaProducer<String, String> all = Clients.producer(brook.bootstrapServers(), Map.of(ProducerConfig.ACKS_CONFIG, "all"));
                KafkaProducer<String, String> one = Clients.producer(brook.bootstrapServers(),
                        Map.of(ProducerConfig.ACKS_CONFIG, "1", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false))) {
            for (int i = 0; i < 10; i++) {
                all.send(new ProducerRecord<>("events", "durable-" + i)).get(30, TimeUnit.SECONDS);
            }
            // no fsync finishes from now on: acks=1 is answered from the page cache alone
            brook.faults().slowFsync(Duration.ofHours(1));
            RecordMetadata md = one.send(new ProducerRecord<>("events", "cached")).get(30, TimeUnit.SECONDS);
            assertThat(md.offset()).isEqualTo(10);
        }
        brook.crash();
        brook.faults().slowFsync(Duration.ZERO);
        brook.start();
        List<String> values = Clients.readAll(brook.bootstrapServers(), "events", 10);
        assertThat(values).hasSize(10).allMatch(v -> v.startsWith("durable-"));
        try (KafkaProducer<String, String> after = Clients.producer(brook.bootstrapServers(), Map.of())) {
            assertThat(after.send(new ProducerRecord<>("events", "next")).get(30, TimeUnit.SECONDS).offset())
                    .as("appends continue where the durable log ends").isEqualTo(10);
        }
    }

    @Test
    void aProducerCarriesOnAcrossAStopAndStartOnTheSamePort() throws Exception {
        int port = brook.port();
        try (KafkaProducer<String, String> p = Clients.producer(brook.bootstrapServers(), Map.of())) {
            p.send(new ProducerRecord<>("events", "before")).get(30, TimeUnit.SECONDS);
            brook.stop();
            assertThat(brook.isRunning()).isFalse();
            // send() may block while the producer has no metadata (it re-bootstraps when its broker
            // is gone), so the record is sent from another thread while the broker starts again
            ExecutorService sender = Executors.newSingleThreadExecutor();
            try {
                Future<RecordMetadata> during = sender.submit(
                        () -> p.send(new ProducerRecord<>("events", "during")).get(30, TimeUnit.SECONDS));
                brook.start();
                assertThat(brook.port()).isEqualTo(port);
                assertThat(during.get(60, TimeUnit.SECONDS).offset()).isEqualTo(1);
            } finally {
                sender.shutdownNow();
            }
            brook.restart();
            assertThat(p.send(new ProducerRecord<>("events", "after")).get(30, TimeUnit.SECONDS).offset()).isEqualTo(2);
        }
        assertThat(Clients.readAll(brook.bootstrapServers(), "events", 3)).containsExactly("before", "during", "after");
    }
}
