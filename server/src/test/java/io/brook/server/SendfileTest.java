package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.storage.FileRecords;
import io.brook.storage.Log;
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
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.DefaultFileRegion;
import io.netty.util.ReferenceCountUtil;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Fetched records leave as file regions (sendfile), on both transports, byte for byte; small
 * slices are copied into the response buffer instead.
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

    @Test
    void shouldEncodeFileRecordsAsARegionThatLeavesTheFileOpen() throws Exception {
        try (Brook brook = Brook.builder().start(); ProtocolClient c = new ProtocolClient(brook.bootstrapServers())) {
            fill(c);
            Log log = brook.context().topics().log("big", 0);
            FileRecords records = log.read(0, 1 << 20, true).records();
            assertThat(records).isNotNull();
            FetchResponse response = new FetchResponse().sessionId(0).responses(List.of(
                    new FetchResponse.FetchableTopicResponse().topic("big").partitions(List.of(
                            new FetchResponse.PartitionData().partitionIndex(0).records(records)))));
            List<Object> parts = ResponseEncoder.encode(ByteBufAllocator.DEFAULT, 7, (short) 1, response, (short) 12);
            try {
                assertThat(parts).hasSize(3);
                assertThat(parts.get(0)).isInstanceOf(ByteBuf.class);
                assertThat(parts.get(1)).isInstanceOf(DefaultFileRegion.class);
                assertThat(((DefaultFileRegion) parts.get(1)).count()).isEqualTo(records.sizeInBytes());
                assertThat(((DefaultFileRegion) parts.get(1)).position()).isEqualTo(records.position());
                long total = 0;
                for (Object p : parts) {
                    total += p instanceof ByteBuf buf ? buf.readableBytes() : ((DefaultFileRegion) p).count();
                }
                assertThat(total).isEqualTo(4 + 5 + response.size((short) 12));
            } finally {
                parts.forEach(ReferenceCountUtil::release);
            }
            assertThat(records.channel().isOpen()).isTrue();
        }
    }

    @Test
    void shouldCopySmallFileRecordsIntoTheOneResponseBuffer() throws Exception {
        try (Brook brook = Brook.builder().start(); ProtocolClient c = new ProtocolClient(brook.bootstrapServers())) {
            c.call(new CreateTopicsRequest().topics(List.of(
                    new CreatableTopic().name("small").numPartitions(1).replicationFactor((short) 1))), (short) 7);
            byte[] value = new byte[100];
            Arrays.fill(value, (byte) 42);
            ByteBuffer batch = new RecordBatchBuilder(Compression.NONE).append(1, null, value).build();
            ProduceResponse produced = c.call(new ProduceRequest().acks((short) -1).timeoutMs(5000).topicData(List.of(
                    new ProduceRequest.TopicProduceData().name("small").partitionData(List.of(
                            new ProduceRequest.PartitionProduceData().index(0)
                                    .records(BufferRecords.wrap(batch.duplicate())))))), (short) 9);
            assertThat(produced.responses().get(0).partitionResponses().get(0).errorCode()).isZero();
            FileRecords records = brook.context().topics().log("small", 0).read(0, 1 << 20, true).records();
            assertThat(records.sizeInBytes()).isLessThan(ResponseEncoder.COPY_FILE_RECORDS_BELOW);
            FetchResponse response = new FetchResponse().sessionId(0).responses(List.of(
                    new FetchResponse.FetchableTopicResponse().topic("small").partitions(List.of(
                            new FetchResponse.PartitionData().partitionIndex(0).records(records)))));
            List<Object> parts = ResponseEncoder.encode(ByteBufAllocator.DEFAULT, 7, (short) 1, response, (short) 12);
            try {
                assertThat(parts).hasSize(1);
                ByteBuf frame = (ByteBuf) parts.get(0);
                assertThat(frame.readableBytes()).isEqualTo(4 + 5 + response.size((short) 12));
                // the fields after the records: partition, topic and response tagged fields (one byte each)
                int recordsEnd = frame.writerIndex() - 3;
                byte[] copied = new byte[records.sizeInBytes()];
                frame.getBytes(recordsEnd - copied.length, copied);
                assertThat(ByteBuffer.wrap(copied)).isEqualTo(records.readAll());
            } finally {
                parts.forEach(ReferenceCountUtil::release);
            }
            assertThat(records.channel().isOpen()).isTrue();
        }
    }

    @Test
    void shouldInlineSmallBufferRecordsAndWrapLargeOnes() {
        FetchResponse small = new FetchResponse().responses(List.of(new FetchResponse.FetchableTopicResponse()
                .topic("x").partitions(List.of(new FetchResponse.PartitionData().records(BufferRecords.wrap(batch(1)
                        .limit(100)))))));
        List<Object> one = ResponseEncoder.encode(ByteBufAllocator.DEFAULT, 1, (short) 1, small, (short) 12);
        assertThat(one).hasSize(1);
        one.forEach(ReferenceCountUtil::release);
        FetchResponse large = new FetchResponse().responses(List.of(new FetchResponse.FetchableTopicResponse()
                .topic("x").partitions(List.of(new FetchResponse.PartitionData().records(BufferRecords.wrap(batch(1)))))));
        List<Object> three = ResponseEncoder.encode(ByteBufAllocator.DEFAULT, 1, (short) 1, large, (short) 12);
        assertThat(three).hasSize(3);
        three.forEach(ReferenceCountUtil::release);
    }
}
