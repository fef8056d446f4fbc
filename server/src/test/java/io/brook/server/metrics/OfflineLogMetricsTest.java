package io.brook.server.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.Brook;
import io.brook.server.ProtocolClient;
import io.brook.testkit.Await;
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
 * A failed fsync takes the log that met it offline: Kafka's OfflineReplicaCount counts it,
 * OfflineLogDirectoryCount counts the data directory, and OfflinePartitionsCount the partition, which
 * has no leader now; a single node has no under-min-ISR partition.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OfflineLogMetricsTest {

    private static final String OFFLINE_REPLICAS = "kafka_server_replicamanager_offlinereplicacount";
    private static final String OFFLINE_DIRS = "kafka_log_logmanager_offlinelogdirectorycount";
    private static final String OFFLINE_PARTITIONS = "kafka_controller_kafkacontroller_offlinepartitionscount";

    @Test
    void aLogTakenOfflineByAFailedFsyncIsCounted() throws Exception {
        try (Brook brook = Brook.builder().faults(true).config("brook.http.listener", "127.0.0.1:0").start();
                ProtocolClient client = new ProtocolClient(brook.bootstrapServers())) {
            assertThat(brook.createTopic("healthy", 1)).isTrue();
            assertThat(brook.createTopic("doomed", 2)).isTrue();
            assertThat(produce(client, "healthy").errorCode()).isZero();
            String before = Scrape.metrics(brook);
            assertThat(Scrape.value(before, OFFLINE_REPLICAS)).isZero();
            assertThat(Scrape.value(before, OFFLINE_DIRS)).isZero();
            assertThat(Scrape.value(before, OFFLINE_PARTITIONS)).isZero();

            brook.faults().failFsync(true);
            assertThat(produce(client, "doomed").errorCode()).isEqualTo(Errors.KAFKA_STORAGE_ERROR.code());
            brook.faults().failFsync(false);
            // the log stays offline after the disk recovers: a failed fsync is never retried
            assertThat(produce(client, "doomed").errorCode()).isEqualTo(Errors.KAFKA_STORAGE_ERROR.code());
            assertThat(produce(client, "healthy").errorCode()).isZero();

            String after = Scrape.metrics(brook);
            assertThat(Scrape.value(after, OFFLINE_REPLICAS)).isEqualTo(1);
            assertThat(Scrape.value(after, OFFLINE_DIRS)).isEqualTo(1);
            assertThat(Scrape.value(after, OFFLINE_PARTITIONS)).isEqualTo(1);
            assertThat(Scrape.value(after, "kafka_server_replicamanager_underminisrpartitioncount")).isZero();
            assertThat(Scrape.value(after, "kafka_server_replicamanager_partitioncount")).isGreaterThanOrEqualTo(3);

            brook.restart();
            Await.until("the restarted broker's metrics", () -> brook.httpPort() > 0);
            String restarted = Scrape.metrics(brook);
            assertThat(Scrape.value(restarted, OFFLINE_REPLICAS)).isZero();
            assertThat(Scrape.value(restarted, OFFLINE_DIRS)).isZero();
        }
    }

    private static ProduceResponse.PartitionProduceResponse produce(ProtocolClient client, String topic)
            throws Exception {
        ProduceResponse r = client.call(new ProduceRequest().acks((short) -1).timeoutMs(10_000).topicData(List.of(
                new TopicProduceData().name(topic).partitionData(List.of(new PartitionProduceData().index(0)
                        .records(BufferRecords.wrap(new RecordBatchBuilder(Compression.NONE)
                                .append(1L, null, "x".getBytes(StandardCharsets.UTF_8)).build())))))), (short) 9);
        return r.responses().get(0).partitionResponses().get(0);
    }
}
