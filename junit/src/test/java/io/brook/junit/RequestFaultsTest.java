package io.brook.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.server.Brook;
import io.brook.server.RecordedRequest;
import io.brook.testkit.Await;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(120)
@BrookTest(perMethod = true, topics = "t")
class RequestFaultsTest {

    @Broker
    Brook brook;

    @Test
    void aNonRetriableErrorReachesTheApplication() throws Exception {
        try (KafkaProducer<String, String> p = Clients.producer(brook.bootstrapServers(),
                Map.of(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false))) {
            p.partitionsFor("t");
            brook.faults().reject(ApiKeys.PRODUCE.id, 1, Errors.TOPIC_AUTHORIZATION_FAILED.code());
            assertThatThrownBy(() -> p.send(new ProducerRecord<>("t", "v")).get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(TopicAuthorizationException.class);
        }
    }

    @Test
    void aRejectedAcksZeroProduceClosesTheConnectionInsteadOfAnswering() throws Exception {
        try (KafkaProducer<String, String> p = Clients.producer(brook.bootstrapServers(),
                Map.of(ProducerConfig.ACKS_CONFIG, "0", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false))) {
            p.partitionsFor("t");
            brook.faults().reject(ApiKeys.PRODUCE.id, 1, Errors.NOT_LEADER_OR_FOLLOWER.code());
            assertThat(p.send(new ProducerRecord<>("t", "lost")).get(30, TimeUnit.SECONDS).hasOffset())
                    .as("acks=0: the send completes without an answer").isFalse();
            // an answer the client does not expect would leave the connection open (and break its
            // bookkeeping); Kafka closes the connection of a failed acks=0 produce, and so does the rule
            Await.until("the broker closed the producer's connection", () -> connectionCloses(p) >= 1);
            assertThat(brook.faults().rejectionsLeft(ApiKeys.PRODUCE.id)).isZero();
            p.send(new ProducerRecord<>("t", "kept")).get(30, TimeUnit.SECONDS);
        }
        assertThat(Clients.readAll(brook.bootstrapServers(), "t", 1)).as("the rejected record was not written")
                .containsExactly("kept");
    }

    private static double connectionCloses(KafkaProducer<String, String> p) {
        return p.metrics().entrySet().stream()
                .filter(e -> e.getKey().name().equals("connection-close-total") && e.getKey().group().equals("producer-metrics"))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue()).sum();
    }

    @Test
    void aDelayedApiKeyTimesOutClientsWithAShorterDeadline(Admin admin) throws Exception {
        admin.listTopics().names().get(30, TimeUnit.SECONDS);
        brook.faults().delay(ApiKeys.METADATA.id, Duration.ofSeconds(1));
        assertThatThrownBy(() -> admin.listTopics(new ListTopicsOptions().timeoutMs(300)).names().get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(TimeoutException.class);
        brook.faults().clear();
        assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).contains("t");
    }

    @Test
    void theRequestLogRecordsKeysVersionsAndClientIds() throws Exception {
        brook.faults().recordRequests();
        try (KafkaProducer<String, String> p = Clients.producer(brook.bootstrapServers(),
                Map.of(ProducerConfig.CLIENT_ID_CONFIG, "billing"))) {
            p.send(new ProducerRecord<>("t", "v")).get(30, TimeUnit.SECONDS);
        }
        assertThat(brook.faults().recordedRequests()).extracting(RecordedRequest::apiKey)
                .contains(ApiKeys.API_VERSIONS.id, ApiKeys.METADATA.id, ApiKeys.PRODUCE.id);
        assertThat(brook.faults().recordedRequests()).filteredOn(r -> r.apiKey() == ApiKeys.PRODUCE.id)
                .singleElement().satisfies(r -> {
                    assertThat(r.clientId()).isEqualTo("billing");
                    assertThat(r.apiVersion()).isPositive();
                });
    }
}
