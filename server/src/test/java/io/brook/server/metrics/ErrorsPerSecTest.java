package io.brook.server.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.Brook;
import io.brook.server.ProtocolClient;
import io.brook.testkit.Await;
import io.brook.wire.message.CreateTopicsRequest;
import io.brook.wire.message.CreateTopicsRequest.CreatableTopic;
import io.brook.wire.message.CreateTopicsResponse;
import io.brook.wire.message.ProduceRequest;
import io.brook.wire.message.ProduceRequest.PartitionProduceData;
import io.brook.wire.message.ProduceRequest.TopicProduceData;
import io.brook.wire.message.ProduceResponse;
import io.brook.wire.protocol.BufferRecords;
import io.brook.wire.protocol.Errors;
import io.brook.wire.record.Compression;
import io.brook.wire.record.RecordBatchBuilder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code kafka.network:type=RequestMetrics,name=ErrorsPerSec} counts the error codes inside the
 * answers as Kafka does: each partition's or topic's code once, NONE included.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ErrorsPerSecTest {
    private Brook brook;
    private ProtocolClient client;

    @BeforeEach
    void start() throws Exception {
        brook = Brook.builder().config("brook.http.listener", "127.0.0.1:0").start();
        client = new ProtocolClient(brook.bootstrapServers());
    }

    @AfterEach
    void stop() throws Exception {
        client.close();
        brook.close();
    }

    @Test
    void countsTheErrorCodesInsideAnswersOncePerPartition() throws Exception {
        CreateTopicsResponse created = client.call(new CreateTopicsRequest().topics(List.of(
                new CreatableTopic().name("t").numPartitions(2).replicationFactor((short) 1),
                new CreatableTopic().name("dup").numPartitions(1).replicationFactor((short) 1),
                new CreatableTopic().name("dup").numPartitions(1).replicationFactor((short) 1),
                new CreatableTopic().name("bad name!").numPartitions(1).replicationFactor((short) 1))), (short) 7);
        assertThat(created.topics()).hasSize(3); // the name given twice is answered once, as by Kafka

        // one produce: two good partitions, three of a topic that does not exist
        List<PartitionProduceData> good = new ArrayList<>();
        List<PartitionProduceData> unknown = new ArrayList<>();
        for (int p = 0; p < 3; p++) {
            (p < 2 ? good : unknown).add(new PartitionProduceData().index(p).records(BufferRecords.wrap(batch())));
        }
        unknown.add(new PartitionProduceData().index(3).records(BufferRecords.wrap(batch())));
        unknown.add(new PartitionProduceData().index(4).records(BufferRecords.wrap(batch())));
        ProduceResponse r = client.call(new ProduceRequest().acks((short) 1).timeoutMs(10_000).topicData(List.of(
                new TopicProduceData().name("t").partitionData(good),
                new TopicProduceData().name("missing").partitionData(unknown))), (short) 9);
        assertThat(r.responses().get(1).partitionResponses())
                .allSatisfy(p -> assertThat(p.errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()));

        // the metrics are marked once the answer is handed to the socket, which may be after the client read it
        Await.until("the produce's error counts", () -> errors(scrape(), "Produce", "NONE") == 2);
        String metrics = scrape();
        assertThat(errors(metrics, "Produce", "NONE")).isEqualTo(2);
        assertThat(errors(metrics, "Produce", "UNKNOWN_TOPIC_OR_PARTITION")).isEqualTo(3);
        // CreateTopics counts each topic's code: one created, a name given twice (refused once), an invalid name
        assertThat(errors(metrics, "CreateTopics", "NONE")).isEqualTo(1);
        assertThat(errors(metrics, "CreateTopics", "INVALID_REQUEST")).isEqualTo(1);
        assertThat(errors(metrics, "CreateTopics", "INVALID_TOPIC_EXCEPTION")).isEqualTo(1);
    }

    private static java.nio.ByteBuffer batch() {
        return new RecordBatchBuilder(Compression.NONE).append(1L, null, "x".getBytes(StandardCharsets.UTF_8)).build();
    }

    private String scrape() {
        return Scrape.metrics(brook);
    }

    private static long errors(String metrics, String request, String error) {
        double v = Scrape.value(metrics, "kafka_network_requestmetrics_errorspersec_total{error=\"" + error
                + "\",request=\"" + request + "\"}");
        return Double.isNaN(v) ? 0 : (long) v;
    }
}
