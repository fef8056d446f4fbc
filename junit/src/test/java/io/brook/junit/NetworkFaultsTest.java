package io.brook.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.server.Brook;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.TimeoutException;
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
}
