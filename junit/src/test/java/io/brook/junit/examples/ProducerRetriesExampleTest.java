package io.brook.junit.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.junit.Broker;
import io.brook.junit.BrookTest;
import io.brook.junit.Clients;
import io.brook.server.Brook;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a producer does with the errors a real cluster answers while leadership moves
 * (NOT_LEADER_OR_FOLLOWER) or replicas are slow (REQUEST_TIMED_OUT): it retries, and the
 * application sees one successful send. The rule answers the next Produce requests with the error
 * without writing anything; the request log counts the attempts.
 */
@Timeout(120)
@BrookTest(perMethod = true, topics = "t")
class ProducerRetriesExampleTest {

    @Broker
    Brook brook;

    private long produces() {
        return brook.faults().recordedRequests().stream().filter(r -> r.apiKey() == ApiKeys.PRODUCE.id).count();
    }

    @Test
    void aProducerRetriesThroughNotLeaderOrFollower() throws Exception {
        try (KafkaProducer<String, String> p = Clients.producer(brook.bootstrapServers(), Map.of())) {
            p.partitionsFor("t");
            brook.faults().recordRequests().reject(ApiKeys.PRODUCE.id, 2, Errors.NOT_LEADER_OR_FOLLOWER.code());
            RecordMetadata md = p.send(new ProducerRecord<>("t", "v")).get(30, TimeUnit.SECONDS);
            assertThat(md.offset()).as("the rejected attempts wrote nothing").isZero();
            assertThat(brook.faults().rejectionsLeft(ApiKeys.PRODUCE.id)).isZero();
            assertThat(produces()).isEqualTo(3);
        }
    }

    @Test
    void aProducerRetriesThroughRequestTimedOut() throws Exception {
        try (KafkaProducer<String, String> p = Clients.producer(brook.bootstrapServers(), Map.of())) {
            p.partitionsFor("t");
            brook.faults().recordRequests().reject(ApiKeys.PRODUCE.id, 1, Errors.REQUEST_TIMED_OUT.code());
            assertThat(p.send(new ProducerRecord<>("t", "v")).get(30, TimeUnit.SECONDS).offset()).isZero();
            assertThat(produces()).isEqualTo(2);
        }
        assertThat(Clients.readAll(brook.bootstrapServers(), "t", 1)).containsExactly("v");
    }
}
