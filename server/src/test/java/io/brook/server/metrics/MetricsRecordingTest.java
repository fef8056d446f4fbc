package io.brook.server.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.Brook;
import io.brook.server.ProtocolClient;
import io.brook.wire.message.CreateTopicsRequest;
import io.brook.wire.message.CreateTopicsRequest.CreatableTopic;
import io.brook.wire.message.ProduceRequest;
import io.brook.wire.message.ProduceRequest.PartitionProduceData;
import io.brook.wire.message.ProduceRequest.TopicProduceData;
import io.brook.wire.message.ProduceResponse;
import io.brook.wire.protocol.BufferRecords;
import io.brook.wire.protocol.Errors;
import io.brook.wire.record.Compression;
import io.brook.wire.record.RecordBatchBuilder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code Brook.Builder.metricsRecording(false)}, the benchmarks' switch: the hot path marks
 * nothing, everything else answers as usual.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MetricsRecordingTest {

    private static final String TOPIC_MESSAGES = "kafka_server_brokertopicmetrics_messagesinpersec_total{topic=\"t\"}";
    private static final String ALL_MESSAGES = "kafka_server_brokertopicmetrics_messagesinpersec_total";

    private static void produceOneRecord(Brook brook) throws Exception {
        try (ProtocolClient client = new ProtocolClient(brook.bootstrapServers())) {
            client.call(new CreateTopicsRequest().topics(List.of(
                    new CreatableTopic().name("t").numPartitions(1).replicationFactor((short) 1))), (short) 7);
            ProduceResponse r = client.call(new ProduceRequest().acks((short) 1).timeoutMs(10_000).topicData(List.of(
                    new TopicProduceData().name("t").partitionData(List.of(new PartitionProduceData().index(0)
                            .records(BufferRecords.wrap(new RecordBatchBuilder(Compression.NONE)
                                    .append(1L, null, "x".getBytes(StandardCharsets.UTF_8)).build())))))), (short) 9);
            assertThat(r.responses().get(0).partitionResponses().get(0).errorCode()).isEqualTo(Errors.NONE.code());
        }
    }

    @Test
    void withoutRecordingTheHandlersMarkNothing() throws Exception {
        try (Brook brook = Brook.builder().config("brook.http.listener", "127.0.0.1:0").metricsRecording(false).start()) {
            produceOneRecord(brook);
            String metrics = Scrape.metrics(brook);
            assertThat(Scrape.value(metrics, TOPIC_MESSAGES)).isNaN();
            assertThat(Scrape.value(metrics, ALL_MESSAGES)).isZero();
        }
        try (Brook brook = Brook.builder().config("brook.http.listener", "127.0.0.1:0").start()) {
            produceOneRecord(brook);
            String metrics = Scrape.metrics(brook);
            assertThat(Scrape.value(metrics, TOPIC_MESSAGES)).isEqualTo(1.0);
            assertThat(Scrape.value(metrics, ALL_MESSAGES)).isEqualTo(1.0);
        }
    }
}
