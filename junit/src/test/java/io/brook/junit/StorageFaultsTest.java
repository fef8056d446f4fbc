package io.brook.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.server.Brook;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(120)
@BrookTest(perMethod = true, topics = "t", config = "brook.log.preallocate.bytes=0")
class StorageFaultsTest {

    @Broker
    Brook brook;

    private KafkaProducer<String, String> noRetries() {
        return Clients.producer(brook.bootstrapServers(), Map.of(ProducerConfig.RETRIES_CONFIG, 0,
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false, ProducerConfig.ACKS_CONFIG, "all"));
    }

    @Test
    void aFullDiskRefusesAppendsWithKafkaStorageErrorUntilSpaceIsBack() throws Exception {
        try (KafkaProducer<String, String> p = noRetries();
                KafkaProducer<String, String> retrying = Clients.producer(brook.bootstrapServers(), Map.of())) {
            p.send(new ProducerRecord<>("t", "a")).get(30, TimeUnit.SECONDS);
            brook.faults().diskFull(true);
            assertThatThrownBy(() -> p.send(new ProducerRecord<>("t", "b")).get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(KafkaStorageException.class);
            Future<RecordMetadata> waiting = retrying.send(new ProducerRecord<>("t", "c"));
            brook.faults().diskFull(false);
            assertThat(waiting.get(30, TimeUnit.SECONDS).offset()).as("the retrying producer got through").isEqualTo(1);
        }
    }

    @Test
    void aFailedFsyncTakesThePartitionOfflineUntilARestart() throws Exception {
        try (KafkaProducer<String, String> p = noRetries()) {
            p.send(new ProducerRecord<>("t", "a")).get(30, TimeUnit.SECONDS);
            brook.faults().failFsync(true);
            assertThatThrownBy(() -> p.send(new ProducerRecord<>("t", "b")).get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(KafkaStorageException.class);
            brook.faults().failFsync(false);
            assertThatThrownBy(() -> p.send(new ProducerRecord<>("t", "c")).get(30, TimeUnit.SECONDS))
                    .as("a failed fsync is never retried: the log stays offline")
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(KafkaStorageException.class);
        }
        brook.restart();
        try (KafkaProducer<String, String> p = Clients.producer(brook.bootstrapServers(), Map.of())) {
            RecordMetadata md = p.send(new ProducerRecord<>("t", "d")).get(30, TimeUnit.SECONDS);
            assertThat(md.offset()).isPositive();
        }
        assertThat(Clients.readAll(brook.bootstrapServers(), "t", 2)).startsWith("a").endsWith("d");
    }

    @Test
    void aSlowFsyncHoldsAcksAllAnswersButNotAcksOne() throws Exception {
        try (KafkaProducer<String, String> all = Clients.producer(brook.bootstrapServers(), Map.of(ProducerConfig.ACKS_CONFIG, "all"));
                KafkaProducer<String, String> one = Clients.producer(brook.bootstrapServers(),
                        Map.of(ProducerConfig.ACKS_CONFIG, "1", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false))) {
            all.send(new ProducerRecord<>("t", "warm-up")).get(30, TimeUnit.SECONDS);
            brook.faults().slowFsync(Duration.ofHours(1));
            Future<RecordMetadata> durable = all.send(new ProducerRecord<>("t", "all"));
            one.send(new ProducerRecord<>("t", "one")).get(30, TimeUnit.SECONDS);
            assertThat(durable).as("acks=all waits for the fsync").isNotDone();
            brook.faults().slowFsync(Duration.ZERO);
            assertThat(durable.get(30, TimeUnit.SECONDS).offset()).isPositive();
        }
    }
}
