package io.brook.junit.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.junit.Broker;
import io.brook.junit.BrookTest;
import io.brook.junit.Clients;
import io.brook.server.Brook;
import io.brook.testkit.Await;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A write whose answer is lost: the broker wrote the record, then the connection dropped before
 * the acknowledgement reached the producer, which sends it again. An idempotent producer (Kafka's
 * default) writes it once; without idempotence the retry is a duplicate. The answer is held back
 * with a delay rule until the test drops every connection.
 */
@Timeout(120)
@BrookTest(perMethod = true, topics = "t")
class IdempotentProducerExampleTest {

    @Broker
    Brook brook;

    @Test
    void anIdempotentProducerWritesOnceWhenItsConnectionDropsBeforeTheAnswer() throws Exception {
        try (KafkaProducer<String, String> p = Clients.producer(brook.bootstrapServers(), Map.of(
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true, ProducerConfig.ACKS_CONFIG, "all"))) {
            p.send(new ProducerRecord<>("t", "first")).get(30, TimeUnit.SECONDS);
            // the next Produce is written, but its answer is held back; the connection then drops
            Future<RecordMetadata> sent = sendAndLoseTheAnswer(p, "second");
            assertThat(sent.get(30, TimeUnit.SECONDS).offset()).isEqualTo(1);
            long produces = brook.faults().recordedRequests().stream().filter(r -> r.apiKey() == ApiKeys.PRODUCE.id).count();
            assertThat(produces).as("the producer sent it again after the drop").isGreaterThanOrEqualTo(2);
        }
        assertThat(Clients.readAll(brook.bootstrapServers(), "t", 2)).as("no duplicate").containsExactly("first", "second");
    }

    @Test
    void withoutIdempotenceTheSameDropWritesTwice() throws Exception {
        try (KafkaProducer<String, String> p = Clients.producer(brook.bootstrapServers(), Map.of(
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false, ProducerConfig.ACKS_CONFIG, "all"))) {
            sendAndLoseTheAnswer(p, "once?").get(30, TimeUnit.SECONDS);
        }
        assertThat(Clients.readAll(brook.bootstrapServers(), "t", 2)).isEqualTo(List.of("once?", "once?"));
    }

    /** Sends {@code value}, waits until the broker handled the Produce, then drops the connection before its answer. */
    private Future<RecordMetadata> sendAndLoseTheAnswer(KafkaProducer<String, String> p, String value) {
        brook.faults().delay(ApiKeys.PRODUCE.id, Duration.ofMinutes(1)).recordRequests();
        Future<RecordMetadata> sent = p.send(new ProducerRecord<>("t", value));
        Await.until("the broker handled the Produce", () -> brook.faults().recordedRequests().stream()
                .anyMatch(r -> r.apiKey() == ApiKeys.PRODUCE.id));
        brook.faults().delay(ApiKeys.PRODUCE.id, Duration.ZERO).dropConnections();
        return sent;
    }
}
