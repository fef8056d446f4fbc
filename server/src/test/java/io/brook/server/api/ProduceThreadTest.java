package io.brook.server.api;

import io.brook.wire.message.ProduceRequest;
import io.brook.wire.message.ProduceRequest.PartitionProduceData;
import io.brook.wire.message.ProduceRequest.TopicProduceData;
import io.brook.wire.protocol.BufferRecords;
import io.brook.wire.record.Compression;
import io.brook.wire.record.RecordBatchBuilder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where a Produce request runs: uncompressed batches on the event loop, any compressed batch on
 * the I/O pool, because checking it means decompressing it (up to 64 MiB from a few kilobytes),
 * which must not stall the other connections of the loop.
 */
class ProduceThreadTest {

    private final ProduceHandler handler = new ProduceHandler(null);

    @Test
    void shouldRunUncompressedBatchesOnTheEventLoop() {
        assertThat(handler.runsOnEventLoop(request(batch(Compression.NONE), batch(Compression.NONE)))).isTrue();
    }

    @Test
    void shouldSendARequestWithAnyCompressedBatchToTheIoPool() {
        assertThat(handler.runsOnEventLoop(request(batch(Compression.NONE), batch(Compression.GZIP)))).isFalse();
        assertThat(handler.runsOnEventLoop(request(batch(Compression.ZSTD)))).isFalse();
    }

    @Test
    void shouldLeaveRecordsTooShortForAHeaderToTheHandlerOnTheEventLoop() {
        ProduceRequest request = request(ByteBuffer.wrap(new byte[] {1, 2, 3}));
        assertThat(handler.runsOnEventLoop(request)).isTrue();
    }

    private static ByteBuffer batch(Compression compression) {
        RecordBatchBuilder builder = new RecordBatchBuilder(compression);
        for (int i = 0; i < 10; i++) {
            builder.append(i, (byte[]) null, ("value-" + i).getBytes(StandardCharsets.UTF_8));
        }
        return builder.build();
    }

    private static ProduceRequest request(ByteBuffer... batches) {
        List<PartitionProduceData> parts = new ArrayList<>();
        for (int i = 0; i < batches.length; i++) {
            parts.add(new PartitionProduceData().index(i).records(BufferRecords.wrap(batches[i])));
        }
        return new ProduceRequest().acks((short) -1).timeoutMs(1000)
                .topicData(List.of(new TopicProduceData().name("t").partitionData(parts)));
    }
}
