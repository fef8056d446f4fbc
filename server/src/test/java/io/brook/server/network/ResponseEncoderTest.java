package io.brook.server.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.storage.AppendResult;
import io.brook.storage.FileRecords;
import io.brook.storage.Log;
import io.brook.storage.LogConfig;
import io.brook.storage.LogManager;
import io.brook.storage.LogManagerOptions;
import io.brook.wire.message.FetchResponse;
import io.brook.wire.protocol.BufferRecords;
import io.brook.wire.record.Compression;
import io.brook.wire.record.RecordBatchBuilder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.DefaultFileRegion;
import io.netty.util.ReferenceCountUtil;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * How a response leaves: file slices as a file region (sendfile) that leaves the segment's file
 * open, small file slices and small in-memory records copied into the one response buffer,
 * large in-memory records wrapped.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ResponseEncoderTest {

    @TempDir
    Path dir;
    private LogManager logs;
    private Log log;

    @BeforeEach
    void open() throws Exception {
        logs = LogManager.open(new LogManagerOptions(dir));
        log = logs.getOrCreateLog("t", 0, LogConfig.defaults());
    }

    @AfterEach
    void close() throws Exception {
        logs.close();
    }

    private static ByteBuffer batch(int i, int valueBytes) {
        byte[] value = new byte[valueBytes];
        Arrays.fill(value, (byte) i);
        return new RecordBatchBuilder(Compression.NONE).append(i, null, value).build();
    }

    private void append(ByteBuffer batch) throws Exception {
        AppendResult r = log.append(batch, 0);
        log.whenDurable(r.lastOffset() + 1).get(10, TimeUnit.SECONDS);
    }

    private static FetchResponse fetchResponse(FileRecords records) {
        return new FetchResponse().sessionId(0).responses(List.of(
                new FetchResponse.FetchableTopicResponse().topic("t").partitions(List.of(
                        new FetchResponse.PartitionData().partitionIndex(0).records(records)))));
    }

    @Test
    void shouldEncodeFileRecordsAsARegionThatLeavesTheFileOpen() throws Exception {
        for (int i = 0; i < 20; i++) {
            append(batch(i, 16 * 1024));
        }
        FileRecords records = log.read(0, 1 << 20, true).records();
        assertThat(records.sizeInBytes()).isGreaterThanOrEqualTo(ResponseEncoder.COPY_FILE_RECORDS_BELOW);
        FetchResponse response = fetchResponse(records);
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

    @Test
    void shouldCopySmallFileRecordsIntoTheOneResponseBuffer() throws Exception {
        append(batch(42, 100));
        FileRecords records = log.read(0, 1 << 20, true).records();
        assertThat(records.sizeInBytes()).isLessThan(ResponseEncoder.COPY_FILE_RECORDS_BELOW);
        FetchResponse response = fetchResponse(records);
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

    @Test
    void shouldInlineSmallBufferRecordsAndWrapLargeOnes() {
        FetchResponse small = new FetchResponse().responses(List.of(new FetchResponse.FetchableTopicResponse()
                .topic("x").partitions(List.of(new FetchResponse.PartitionData().records(BufferRecords.wrap(
                        batch(1, 16 * 1024).limit(100)))))));
        List<Object> one = ResponseEncoder.encode(ByteBufAllocator.DEFAULT, 1, (short) 1, small, (short) 12);
        assertThat(one).hasSize(1);
        one.forEach(ReferenceCountUtil::release);
        FetchResponse large = new FetchResponse().responses(List.of(new FetchResponse.FetchableTopicResponse()
                .topic("x").partitions(List.of(new FetchResponse.PartitionData().records(BufferRecords.wrap(
                        batch(1, 16 * 1024)))))));
        List<Object> three = ResponseEncoder.encode(ByteBufAllocator.DEFAULT, 1, (short) 1, large, (short) 12);
        assertThat(three).hasSize(3);
        three.forEach(ReferenceCountUtil::release);
    }

    @Test
    void shouldHoldNoMoreThanItsFieldsBeforeAFileRegion() throws Exception {
        for (int i = 0; i < 4; i++) {
            append(batch(i, 16 * 1024));
        }
        FileRecords records = log.read(0, 1 << 20, true).records();
        List<Object> parts = ResponseEncoder.encode(ByteBufAllocator.DEFAULT, 7, (short) 1, fetchResponse(records),
                (short) 12);
        try {
            ByteBuf fields = (ByteBuf) parts.get(0);
            // a queued answer that waits for its client holds this buffer: its capacity, not 64 KiB
            assertThat(fields.capacity()).isLessThanOrEqualTo(4 * fields.readableBytes());
        } finally {
            parts.forEach(ReferenceCountUtil::release);
        }
    }

    @Test
    void shouldCopyAtMostTheCopyBudgetOfSmallFileSlices() throws Exception {
        int slices = 40;
        for (int i = 0; i < slices; i++) {
            append(batch(i, 8 * 1024));
        }
        List<FetchResponse.PartitionData> partitions = new java.util.ArrayList<>();
        long offset = 0;
        for (int i = 0; i < slices; i++) {
            FileRecords one = log.read(offset, 1, true).records();
            assertThat(one.sizeInBytes()).isLessThan(ResponseEncoder.COPY_FILE_RECORDS_BELOW);
            partitions.add(new FetchResponse.PartitionData().partitionIndex(i).records(one));
            offset++;
        }
        FetchResponse response = new FetchResponse().sessionId(0).responses(List.of(
                new FetchResponse.FetchableTopicResponse().topic("t").partitions(partitions)));
        List<Object> parts = ResponseEncoder.encode(ByteBufAllocator.DEFAULT, 7, (short) 1, response, (short) 12);
        try {
            long inBuffers = 0;
            long total = 0;
            for (Object p : parts) {
                long n = p instanceof ByteBuf buf ? buf.readableBytes() : ((DefaultFileRegion) p).count();
                inBuffers += p instanceof ByteBuf ? n : 0;
                total += n;
            }
            assertThat(total).isEqualTo(4 + 5 + response.size((short) 12));
            // 40 slices of 8 KiB: the first eight are copied, the rest leave as regions
            assertThat(inBuffers).isLessThan(ResponseEncoder.COPY_BUDGET + 8 * 1024);
        } finally {
            parts.forEach(ReferenceCountUtil::release);
        }
    }
}
