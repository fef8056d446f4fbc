package io.brook.wire.record;

import com.github.luben.zstd.ZstdOutputStreamNoFinalizer;
import io.brook.wire.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RecordWalkerTest {
    private static final int MAX = RecordBatch.DEFAULT_MAX_DECOMPRESSED_BYTES;

    @ParameterizedTest
    @EnumSource(Compression.class)
    void shouldWalkWhatKafkaClientsBuild(Compression c) {
        SimpleRecord[] records = new SimpleRecord[300];
        for (int i = 0; i < records.length; i++) {
            records[i] = new SimpleRecord(Samples.BASE_TIMESTAMP + i, i % 3 == 0 ? null : Samples.bytes("k" + i),
                    Samples.bytes("value " + "x".repeat(i)));
        }
        ByteBuffer b = MemoryRecords.withRecords(org.apache.kafka.common.record.internal.RecordBatch.MAGIC_VALUE_V2,
                0L, Samples.kafka(c), org.apache.kafka.common.record.TimestampType.CREATE_TIME, records).buffer();
        RecordWalker walker = new RecordWalker(MAX);
        List<long[]> seen = new ArrayList<>();
        Errors e = walker.walk(new RecordBatch().wrap(b, 0), true, (index, offsetDelta, timestamp, keyLength,
                valueLength) -> seen.add(new long[] {index, offsetDelta, timestamp, keyLength, valueLength}));
        assertThat(e).as("%s", walker.failure()).isEqualTo(Errors.NONE);
        assertThat(seen).hasSize(300);
        for (int i = 0; i < 300; i++) {
            assertThat(seen.get(i)).containsExactly(i, i, Samples.BASE_TIMESTAMP + i,
                    i % 3 == 0 ? -1 : ("k" + i).length(), 6 + i);
        }
    }

    /** Values shorter than a copy, longer than one and longer than the whole window, with headers. */
    private static ByteBuffer mixedBatch(Compression c, boolean direct) {
        int[] sizes = {0, 7, RecordWalker.CHUNK - 3, 100, RecordWalker.CHUNK * 2 + 5, RecordWalker.WINDOW + 11, 1, 300};
        SimpleRecord[] records = new SimpleRecord[sizes.length * 3];
        for (int i = 0; i < records.length; i++) {
            byte[] value = new byte[sizes[i % sizes.length]];
            java.util.Arrays.fill(value, (byte) ('a' + i % 26));
            org.apache.kafka.common.header.Header[] headers = {
                new org.apache.kafka.common.header.internals.RecordHeader("h" + i, Samples.bytes("x".repeat(i)))};
            records[i] = new SimpleRecord(Samples.BASE_TIMESTAMP + i, Samples.bytes("k" + i), value, headers);
        }
        ByteBuffer heap = MemoryRecords.withRecords(org.apache.kafka.common.record.internal.RecordBatch.MAGIC_VALUE_V2,
                0L, Samples.kafka(c), org.apache.kafka.common.record.TimestampType.CREATE_TIME, records).buffer();
        if (!direct) {
            return heap;
        }
        ByteBuffer d = ByteBuffer.allocateDirect(heap.remaining());
        d.put(heap).flip();
        return d;
    }

    @ParameterizedTest
    @EnumSource(Compression.class)
    void shouldWalkValuesLongerThanACopyAndThanTheWindow(Compression c) {
        for (boolean direct : new boolean[] {false, true}) {
            ByteBuffer b = mixedBatch(c, direct);
            RecordWalker walker = new RecordWalker(MAX);
            List<long[]> seen = new ArrayList<>();
            Errors e = walker.walk(new RecordBatch().wrap(b, 0), true, (index, offsetDelta, timestamp, keyLength,
                    valueLength) -> seen.add(new long[] {index, offsetDelta, timestamp, keyLength, valueLength}));
            assertThat(e).as("%s", walker.failure()).isEqualTo(Errors.NONE);
            List<long[]> expected = new ArrayList<>();
            new RecordBatch().wrap(b, 0).records().forEachRemaining(r -> expected.add(new long[] {
                expected.size(), r.offsetDelta(), r.timestamp(), r.hasKey() ? r.key().remaining() : -1,
                r.hasValue() ? r.value().remaining() : -1}));
            assertThat(seen).hasSameSizeAs(expected);
            for (int i = 0; i < seen.size(); i++) {
                assertThat(seen.get(i)).as("record %d, direct %s", i, direct).containsExactly(expected.get(i));
            }
        }
    }

    @Test
    void shouldRefuseEveryTruncationOfABatchOfManyCopiesWithoutThrowing() {
        ByteBuffer whole = mixedBatch(Compression.NONE, true);
        RecordWalker walker = new RecordWalker(MAX);
        int size = whole.remaining();
        for (int cut = RecordBatch.RECORDS_OFFSET + 1; cut < size; cut += 37) {
            ByteBuffer b = ByteBuffer.allocateDirect(cut);
            b.put(whole.duplicate().limit(cut)).flip();
            b.putInt(RecordBatch.BATCH_LENGTH_OFFSET, cut - RecordBatch.LOG_OVERHEAD);
            assertThat(walker.walk(new RecordBatch().wrap(b, 0), true, null)).as("cut at %d of %d", cut, size)
                    .isEqualTo(Errors.INVALID_RECORD);
            assertThat(walker.failure()).isNotNull();
        }
        assertThat(walker.walk(new RecordBatch().wrap(whole, 0), true, null)).isEqualTo(Errors.NONE);
    }

    @ParameterizedTest
    @EnumSource(Compression.class)
    void shouldAllocateNothingForAnUncompressedBatchAndLittleForACompressedOne(Compression c) {
        ByteBuffer b = Samples.smallBatch(c);
        RecordBatch batch = new RecordBatch().wrap(b, 0);
        RecordWalker walker = new RecordWalker(MAX);
        RecordWalker.Visitor visitor = (i, o, t, k, v) -> true;
        for (int i = 0; i < 20_000; i++) {
            walker.walk(batch, true, visitor); // warm up, so that the JIT removes what escape analysis can
        }
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        int failed = 0;
        for (int i = 0; i < 1000; i++) {
            failed += walker.walk(batch, true, visitor) == Errors.NONE ? 0 : 1;
        }
        long perWalk = (threads.getCurrentThreadAllocatedBytes() - before) / 1000;
        assertThat(failed).isZero();
        if (c == Compression.NONE) {
            assertThat(perWalk).isZero();
        } else {
            assertThat(perWalk).as("bytes per walk of a %s batch", c).isLessThan(300_000);
        }
    }

    @Test
    void shouldStopAtTheDecompressionBoundWithoutHoldingTheOutput() {
        ByteBuffer bomb = new RecordBatchBuilder(Compression.LZ4).append(0L, null, ByteBuffer.allocate(16 << 20)).build();
        RecordBatch batch = new RecordBatch().wrap(bomb, 0);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        RecordWalker small = new RecordWalker(1 << 20);
        assertThat(small.walk(batch, true, null)).isEqualTo(Errors.INVALID_RECORD);
        assertThat(small.failure()).contains("decompresses to more than 1048576 bytes");
        RecordWalker enough = new RecordWalker(17 << 20);
        assertThat(enough.walk(batch, true, null)).isEqualTo(Errors.NONE);
        assertThat(threads.getCurrentThreadAllocatedBytes() - before).as("bytes allocated for 16 MiB of records")
                .isLessThan(2L << 20);
    }

    private static byte[] zstd(byte[] section, int windowLog) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ZstdOutputStreamNoFinalizer z = new ZstdOutputStreamNoFinalizer(out).setLevel(3).setWindowLog(windowLog)) {
            // two writes with a flush between: the frame cannot know its size and declares the window
            z.write(section, 0, section.length / 2);
            z.flush();
            z.write(section, section.length / 2, section.length - section.length / 2);
        }
        return out.toByteArray();
    }

    @Test
    void shouldRefuseAZstdFrameDeclaringAWindowAbove8MiB() throws Exception {
        ByteBuffer plain = Samples.smallBatch(Compression.NONE);
        byte[] section = new byte[plain.limit() - RecordBatch.RECORDS_OFFSET];
        plain.get(RecordBatch.RECORDS_OFFSET, section);
        for (int windowLog : new int[] {23, 27}) {
            byte[] compressed = zstd(section, windowLog);
            ByteBuffer b = ByteBuffer.allocate(RecordBatch.HEADER_SIZE + compressed.length);
            b.put(plain.duplicate().limit(RecordBatch.HEADER_SIZE)).put(compressed).flip();
            b.putInt(RecordBatch.BATCH_LENGTH_OFFSET, b.limit() - RecordBatch.LOG_OVERHEAD);
            b.putShort(RecordBatch.ATTRIBUTES_OFFSET, (short) Compression.ZSTD.id());
            RecordBatch batch = new RecordBatch().wrap(b, 0);
            RecordWalker walker = new RecordWalker(MAX);
            if (windowLog == 23) {
                assertThat(walker.walk(batch, true, null)).as("%s", walker.failure()).isEqualTo(Errors.NONE);
                assertThat(batch.records().hasNext()).isTrue();
            } else {
                assertThat(walker.walk(batch, true, null)).isEqualTo(Errors.CORRUPT_MESSAGE);
                assertThat(walker.failure()).contains("ZSTD");
                assertThatThrownBy(batch::records).isInstanceOf(CorruptRecordException.class);
            }
        }
    }

    @Test
    void shouldReportTheRecordWhoseFramingIsWrong() {
        ByteBuffer b = Samples.smallBatch(Compression.NONE);
        // record 0 ends with its one header: key length 1, "h", value length 2, "v0"
        int length = b.get(RecordBatch.RECORDS_OFFSET) >> 1;
        int lastOfRecord0 = RecordBatch.RECORDS_OFFSET + 1 + length - 1;
        b.put(lastOfRecord0 - 4, (byte) 0x7f); // the header key length, now -64
        RecordWalker walker = new RecordWalker(MAX);
        assertThat(walker.walk(new RecordBatch().wrap(b, 0), true, null)).isEqualTo(Errors.INVALID_RECORD);
        assertThat(walker.failedRecord()).isZero();
        assertThat(walker.failure()).startsWith("record 0: ");
    }

    @ParameterizedTest
    @EnumSource(Compression.class)
    void shouldWalkAnEmptyBatchAsTheCleanerWritesIt(Compression c) {
        ByteBuffer built = new RecordBatchBuilder(c).emptyBatchLastOffset(4).build();
        ByteBuffer headerOnly = Samples.smallBatch(c).limit(RecordBatch.HEADER_SIZE).slice();
        headerOnly.putInt(RecordBatch.BATCH_LENGTH_OFFSET, RecordBatch.HEADER_SIZE - RecordBatch.LOG_OVERHEAD);
        headerOnly.putInt(RecordBatch.RECORDS_COUNT_OFFSET, 0);
        RecordWalker walker = new RecordWalker(MAX);
        for (ByteBuffer b : new ByteBuffer[] {built, headerOnly}) {
            assertThat(walker.walk(new RecordBatch().wrap(b, 0), false, null)).as("%s", walker.failure())
                    .isEqualTo(Errors.NONE);
            assertThat(walker.walk(new RecordBatch().wrap(b, 0), true, null)).isEqualTo(Errors.INVALID_RECORD);
        }
    }

    /** A record's size is its length field; only records of compressed batches are held to the bound. */
    @ParameterizedTest
    @EnumSource(Compression.class)
    void shouldHoldRecordsOfCompressedBatchesToTheRecordBound(Compression c) {
        // null key, 100-byte value, no headers: 1 + 1 + 1 + 1 + 2 + 100 + 1 = 107 bytes after the length
        ByteBuffer b = MemoryRecords.withRecords(org.apache.kafka.common.record.internal.RecordBatch.MAGIC_VALUE_V2,
                0L, Samples.kafka(c), org.apache.kafka.common.record.TimestampType.CREATE_TIME,
                new SimpleRecord(Samples.BASE_TIMESTAMP, null, new byte[100])).buffer();
        RecordWalker walker = new RecordWalker(MAX);
        assertThat(walker.walk(new RecordBatch().wrap(b, 0), true, null, 107)).isEqualTo(Errors.NONE);
        Errors tooSmall = walker.walk(new RecordBatch().wrap(b, 0), true, null, 106);
        if (c == Compression.NONE) {
            assertThat(tooSmall).isEqualTo(Errors.NONE);
        } else {
            assertThat(tooSmall).isEqualTo(Errors.INVALID_RECORD);
            assertThat(walker.failedRecord()).isZero();
            assertThat(walker.failure()).contains("107").contains("106");
        }
    }
}
