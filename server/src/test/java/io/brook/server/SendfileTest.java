package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.wire.message.CreateTopicsRequest;
import io.brook.wire.message.CreateTopicsRequest.CreatableTopic;
import io.brook.wire.message.FetchRequest;
import io.brook.wire.message.FetchResponse;
import io.brook.wire.message.ProduceRequest;
import io.brook.wire.message.ProduceResponse;
import io.brook.wire.protocol.BufferRecords;
import io.brook.wire.record.Compression;
import io.brook.wire.record.RecordBatch;
import io.brook.wire.record.RecordBatchBuilder;
import io.brook.wire.record.RecordBatches;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Large fetches leave as file regions (sendfile) on both transports, byte for byte (how the
 * encoder splits a response is ResponseEncoderTest's).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SendfileTest {

    private static final int BATCHES = 200;
    private static final int VALUE_BYTES = 16 * 1024;

    private static ByteBuffer batch(int i) {
        byte[] value = new byte[VALUE_BYTES];
        Arrays.fill(value, (byte) i);
        return new RecordBatchBuilder(Compression.NONE).append(i, null, value).build();
    }

    private static void fill(ProtocolClient c) throws Exception {
        c.call(new CreateTopicsRequest().topics(List.of(
                new CreatableTopic().name("big").numPartitions(1).replicationFactor((short) 1))), (short) 7);
        for (int i = 0; i < BATCHES; i++) {
            ProduceResponse r = c.call(new ProduceRequest().acks((short) -1).timeoutMs(5000).topicData(List.of(
                    new ProduceRequest.TopicProduceData().name("big").partitionData(List.of(
                            new ProduceRequest.PartitionProduceData().index(0).records(BufferRecords.wrap(batch(i))))))),
                    (short) 9);
            assertThat(r.responses().get(0).partitionResponses().get(0).errorCode()).isZero();
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void shouldServeLargeFetchesIntactOnEitherTransport(boolean epoll) throws Exception {
        try (Brook brook = Brook.builder().config("brook.network.epoll", Boolean.toString(epoll)).start();
                ProtocolClient c = new ProtocolClient(brook.bootstrapServers())) {
            if (!epoll) {
                assertThat(brook.transport()).isEqualTo("nio");
            }
            fill(c);
            FetchResponse r = c.call(new FetchRequest().maxWaitMs(0).minBytes(1).maxBytes(64 << 20).sessionEpoch(-1)
                    .topics(List.of(new FetchRequest.FetchTopic().topic("big").partitions(List.of(
                            new FetchRequest.FetchPartition().partition(0).fetchOffset(0)
                                    .partitionMaxBytes(64 << 20))))), (short) 12);
            ByteBuffer records = ((BufferRecords) r.responses().get(0).partitions().get(0).records()).buffer();
            RecordBatches batches = new RecordBatches().wrap(records);
            RecordBatch b;
            int n = 0;
            while ((b = batches.next()) != null) {
                assertThat(b.isCrcValid()).isTrue();
                assertThat(b.baseOffset()).isEqualTo(n);
                ByteBuffer value = b.records().next().value();
                assertThat(value.remaining()).isEqualTo(VALUE_BYTES);
                assertThat(value.get(VALUE_BYTES / 2)).isEqualTo((byte) n);
                n++;
            }
            assertThat(n).isEqualTo(BATCHES);
        }
    }
}
