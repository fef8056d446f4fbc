package io.brook.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.server.Brook;
import io.brook.testkit.Await;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(120)
@BrookTest(perMethod = true, topics = "t")
class NetworkFaultsTest {

    @Broker
    Brook brook;

    @Test
    void aPausedBrokerAnswersNothingUntilResumed(Admin admin) throws Exception {
        admin.listTopics().names().get(30, TimeUnit.SECONDS); // connected
        try (KafkaProducer<String, String> p = Clients.producer(brook.bootstrapServers(), Map.of())) {
            p.partitionsFor("t"); // connected, metadata known
            brook.faults().pauseNetwork();
            assertThatThrownBy(() -> admin.listTopics(new ListTopicsOptions().timeoutMs(300)).names().get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(TimeoutException.class);
            brook.faults().recordRequests();
            Future<RecordMetadata> sent = p.send(new ProducerRecord<>("t", "held"));
            assertThat(brook.faults().recordedRequests()).as("nothing reaches the handlers while paused").isEmpty();
            assertThat(sent).isNotDone();
            brook.faults().resumeNetwork();
            assertThat(sent.get(30, TimeUnit.SECONDS).offset()).isZero();
        }
        assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).contains("t");
    }

    @Test
    void latencyDelaysEveryAnswer(Admin admin) throws Exception {
        brook.faults().latency(Duration.ofSeconds(1));
        assertThatThrownBy(() -> admin.listTopics(new ListTopicsOptions().timeoutMs(300)).names().get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(TimeoutException.class);
        brook.faults().latency(Duration.ZERO);
        assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).contains("t");
    }

    @Test
    void anIdempotentProducerWritesOnceWhenItsConnectionDropsBeforeTheAnswer() throws Exception {
        try (KafkaProducer<String, String> p = Clients.producer(brook.bootstrapServers(), Map.of(
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true, ProducerConfig.ACKS_CONFIG, "all"))) {
            p.send(new ProducerRecord<>("t", "first")).get(30, TimeUnit.SECONDS);
            // the next Produce is written, but its answer is held back; the connection then drops
            brook.faults().delay(ApiKeys.PRODUCE.id, Duration.ofMinutes(1)).recordRequests();
            Future<RecordMetadata> sent = p.send(new ProducerRecord<>("t", "second"));
            Await.until("the broker handled the Produce", () -> brook.faults().recordedRequests().stream()
                    .anyMatch(r -> r.apiKey() == ApiKeys.PRODUCE.id));
            brook.faults().delay(ApiKeys.PRODUCE.id, Duration.ZERO).dropConnections();
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
            brook.faults().delay(ApiKeys.PRODUCE.id, Duration.ofMinutes(1)).recordRequests();
            Future<RecordMetadata> sent = p.send(new ProducerRecord<>("t", "once?"));
            Await.until("the broker handled the Produce", () -> brook.faults().recordedRequests().stream()
                    .anyMatch(r -> r.apiKey() == ApiKeys.PRODUCE.id));
            brook.faults().delay(ApiKeys.PRODUCE.id, Duration.ZERO).dropConnections();
            sent.get(30, TimeUnit.SECONDS);
        }
        assertThat(Clients.readAll(brook.bootstrapServers(), "t", 2)).isEqualTo(List.of("once?", "once?"));
    }
}
