package io.brook.storage;

import io.brook.wire.protocol.Errors;
import io.brook.wire.record.Compression;
import io.brook.wire.record.RecordBatch;
import io.brook.wire.record.RecordBatchBuilder;
import io.brook.wire.record.TimestampType;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The record-level checks of an append (Kafka's log validator): forged batches are refused with
 * the record at fault and leave the log untouched; what kafka-clients builds is stored byte for
 * byte.
 */
class AppendValidationTest {
    @TempDir
    Path tmp;
    LogFixture fx;

    Log open(Map<String, ?> settings) throws Exception {
        fx = new LogFixture(tmp, settings);
        return fx.open();
    }

    @AfterEach
    void tearDown() throws Exception {
        if (fx != null) {
            fx.close();
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static ByteBuffer batch(Compression c, int records) {
        RecordBatchBuilder b = new RecordBatchBuilder(c);
        for (int i = 0; i < records; i++) {
            b.append(1_700_000_000_000L + i, bytes("k" + i), bytes("value-" + i));
        }
        return b.build();
    }

    /** Writes a valid CRC over the batch as it now is. */
    private static ByteBuffer reseal(ByteBuffer b) {
        b.putInt(RecordBatch.CRC_OFFSET, (int) new RecordBatch().wrap(b, 0).computeCrc());
        return b;
    }

    private static ByteBuffer claimCount(ByteBuffer b, int count) {
        b.putInt(RecordBatch.RECORDS_COUNT_OFFSET, count);
        b.putInt(RecordBatch.LAST_OFFSET_DELTA_OFFSET, count - 1);
        return reseal(b);
    }

    /** The index of the first record the result names as at fault, -1 if it names none. */
    private static int firstAtFault(AppendResult r) {
        return r.recordErrors().isEmpty() ? -1 : r.recordErrors().get(0).batchIndex();
    }

    private void assertRefused(Log log, ByteBuffer forged, Errors error, int recordIndex) {
        AppendResult r = log.append(forged, 0);
        assertThat(r.error()).as("%s", r).isEqualTo(error);
        assertThat(firstAtFault(r)).as("%s", r).isEqualTo(recordIndex);
        assertThat(log.logEndOffset()).isZero();
        assertThat(log.segmentCount()).isEqualTo(1);
    }

    @Test
    void shouldRefuseAGzipBatchClaimingMaxIntRecordsWithoutMovingTheLogEnd() throws Exception {
        Log log = open(Map.of());
        // the 61-byte header alone, with an empty gzip section
        ByteBuffer headerOnly = batch(Compression.GZIP, 1).limit(RecordBatch.HEADER_SIZE).slice();
        headerOnly.putInt(RecordBatch.BATCH_LENGTH_OFFSET, RecordBatch.HEADER_SIZE - RecordBatch.LOG_OVERHEAD);
        claimCount(headerOnly, Integer.MAX_VALUE);
        for (int i = 0; i < 3; i++) {
            assertRefused(log, headerOnly.duplicate(), Errors.INVALID_RECORD, 0);
        }
        // a sound gzip section holding one record
        ByteBuffer one = claimCount(batch(Compression.GZIP, 1), Integer.MAX_VALUE);
        for (int i = 0; i < 3; i++) {
            assertRefused(log, one.duplicate(), Errors.INVALID_RECORD, 1);
        }
        assertThat(log.append(batch(Compression.GZIP, 2), 0).lastOffset()).isEqualTo(1);
    }

    @ParameterizedTest
    @EnumSource(value = Compression.class, names = {"NONE", "LZ4", "ZSTD"})
    void shouldRefuseACountThatDisagreesWithTheRecords(Compression c) throws Exception {
        Log log = open(Map.of());
        assertRefused(log, claimCount(batch(c, 2), 3), Errors.INVALID_RECORD, 2);
        AppendResult fewer = log.append(claimCount(batch(c, 2), 1), 0);
        assertThat(fewer.error()).isEqualTo(Errors.INVALID_RECORD);
        assertThat(fewer.errorMessage()).contains("bytes remain after the last of the 1 records");
        assertThat(log.logEndOffset()).isZero();
        // lastOffsetDelta must be count - 1
        ByteBuffer b = batch(c, 2);
        b.putInt(RecordBatch.LAST_OFFSET_DELTA_OFFSET, 5);
        assertRefused(log, reseal(b), Errors.INVALID_RECORD, -1);
    }

    @ParameterizedTest
    @EnumSource(value = Compression.class, names = {"NONE", "SNAPPY", "LZ4"})
    void shouldRefuseOffsetDeltasThatDoNotRunFromZero(Compression c) throws Exception {
        Log log = open(Map.of());
        ByteBuffer gap = new RecordBatchBuilder(c).appendWithOffset(0, 1L, null, ByteBuffer.wrap(bytes("a")))
                .appendWithOffset(2, 1L, null, ByteBuffer.wrap(bytes("b"))).build();
        gap.putInt(RecordBatch.LAST_OFFSET_DELTA_OFFSET, 1);
        reseal(gap);
        AppendResult r = log.append(gap, 0);
        assertThat(r.error()).isEqualTo(Errors.INVALID_RECORD);
        assertThat(firstAtFault(r)).isEqualTo(1);
        assertThat(r.errorMessage()).contains("record 1: offset delta 2 where 1 was expected");
        assertThat(log.logEndOffset()).isZero();
    }

    @Test
    void shouldRefuseATruncatedRecordAndARecordLongerThanItsFields() throws Exception {
        Log log = open(Map.of());
        ByteBuffer whole = batch(Compression.NONE, 2);
        ByteBuffer cut = ByteBuffer.allocate(whole.limit() - 1).put(whole.duplicate().limit(whole.limit() - 1)).flip();
        cut.putInt(RecordBatch.BATCH_LENGTH_OFFSET, cut.limit() - RecordBatch.LOG_OVERHEAD);
        assertRefused(log, reseal(cut), Errors.INVALID_RECORD, 1);

        // one spare byte inside record 0, its length saying it belongs to the record
        ByteBuffer one = batch(Compression.NONE, 1);
        int length = one.get(RecordBatch.RECORDS_OFFSET) >> 1; // one-byte zig-zag varint
        ByteBuffer padded = ByteBuffer.allocate(one.limit() + 1).put(one.duplicate()).put((byte) 0).flip();
        padded.put(RecordBatch.RECORDS_OFFSET, (byte) ((length + 1) << 1));
        padded.putInt(RecordBatch.BATCH_LENGTH_OFFSET, padded.limit() - RecordBatch.LOG_OVERHEAD);
        AppendResult r = log.append(reseal(padded), 0);
        assertThat(r.error()).isEqualTo(Errors.INVALID_RECORD);
        assertThat(firstAtFault(r)).isZero();
        assertThat(r.errorMessage()).contains("length " + (length + 1) + " but its fields take " + length + " bytes");
        assertThat(log.logEndOffset()).isZero();
    }

    @Test
    void shouldRefuseABatchThatDecompressesBeyondTheBound() throws Exception {
        Log log = open(Map.of());
        ByteBuffer bomb = new RecordBatchBuilder(Compression.ZSTD)
                .append(1L, ByteBuffer.wrap(bytes("k")), ByteBuffer.allocate(RecordBatch.DEFAULT_MAX_DECOMPRESSED_BYTES)).build();
        assertThat(bomb.limit()).isLessThan(1024 * 1024);
        AppendResult r = log.append(bomb, 0);
        assertThat(r.error()).isEqualTo(Errors.INVALID_RECORD);
        assertThat(r.errorMessage()).contains("decompresses to more than " + RecordBatch.DEFAULT_MAX_DECOMPRESSED_BYTES);
        assertThat(log.logEndOffset()).isZero();
    }

    @Test
    void shouldCheckKeysOfACompressedBatchWithoutDecompressingItIntoMemory() throws Exception {
        Log log = open(Map.of(LogConfig.CLEANUP_POLICY, "compact"));
        ByteBuffer large = new RecordBatchBuilder(Compression.ZSTD)
                .append(1L, ByteBuffer.wrap(bytes("a")), ByteBuffer.allocate(20 << 20))
                .append(1L, ByteBuffer.wrap(bytes("b")), ByteBuffer.allocate(20 << 20))
                .append(1L, null, ByteBuffer.allocate(20 << 20)).build();
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        AppendResult r = log.append(large, 0);
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertThat(r.error()).isEqualTo(Errors.INVALID_RECORD);
        assertThat(r.recordErrors()).extracting(RecordError::batchIndex).containsExactly(2);
        assertThat(r.recordErrors().get(0).message()).startsWith("Compacted topic cannot accept message without key");
        assertThat(allocated).as("bytes allocated to check 60 MiB of records").isLessThan(4L << 20);
    }

    @Test
    void shouldCheckTheTimestampOfEveryRecordNotOnlyTheHeaders() throws Exception {
        LogFixture f = new LogFixture(tmp, Map.of(LogConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS, 1000));
        fx = f;
        Log log = f.open();
        long now = f.clock.millis();
        // first and largest timestamps are in range; the middle one is not
        ByteBuffer b = new RecordBatchBuilder(Compression.LZ4).append(now, null, bytes("a"))
                .append(now - 5000, null, bytes("b")).append(now, null, bytes("c")).build();
        AppendResult r = log.append(b, 0);
        assertThat(r.error()).isEqualTo(Errors.INVALID_TIMESTAMP);
        assertThat(firstAtFault(r)).isEqualTo(1);
        assertThat(log.logEndOffset()).isZero();

        // a batch claiming LogAppendTime: its time is checked as every record's on a CreateTime topic
        ByteBuffer lat = new RecordBatchBuilder(Compression.NONE).logAppendTime(now - 5000)
                .append(now, null, bytes("a")).build();
        assertThat(new RecordBatch().wrap(lat, 0).timestampType()).isEqualTo(TimestampType.LOG_APPEND_TIME);
        assertThat(log.append(lat, 0).error()).isEqualTo(Errors.INVALID_TIMESTAMP);
        assertThat(log.logEndOffset()).isZero();
    }

    @Test
    void shouldRefuseTimestampsMoreThanAnHourAheadByDefaultAsKafka4Does() throws Exception {
        Log log = open(Map.of());
        long now = fx.clock.millis();
        ByteBuffer ahead = new RecordBatchBuilder(Compression.NONE).append(now, null, bytes("a"))
                .append(now + 3_600_001L, null, bytes("b")).build();
        AppendResult r = log.append(ahead, 0);
        assertThat(r.error()).isEqualTo(Errors.INVALID_TIMESTAMP);
        assertThat(firstAtFault(r)).isEqualTo(1);
        assertThat(log.logEndOffset()).isZero();

        ByteBuffer withinAnHour = new RecordBatchBuilder(Compression.NONE).append(now + 3_600_000L, null, bytes("a")).build();
        assertThat(log.append(withinAnHour, 0).error()).isEqualTo(Errors.NONE);
    }

    @Test
    void shouldRefuseABatchClaimingLogAppendTimeOnALogAppendTimeTopic() throws Exception {
        Log log = open(Map.of(LogConfig.MESSAGE_TIMESTAMP_TYPE, "LogAppendTime"));
        long now = fx.clock.millis();
        ByteBuffer lat = new RecordBatchBuilder(Compression.NONE).logAppendTime(now).append(now, null, bytes("a"))
                .build();
        assertRefused(log, lat, Errors.INVALID_TIMESTAMP, 0);
        assertThat(log.append(batch(Compression.NONE, 1), 0).error()).isEqualTo(Errors.NONE);
    }

    @ParameterizedTest
    @EnumSource(names = {"NONE", "GZIP", "SNAPPY", "LZ4", "ZSTD"})
    void shouldStoreWhatKafkaClientsBuildByteForByte(org.apache.kafka.common.record.internal.CompressionType type)
            throws Exception {
        Log log = open(Map.of());
        org.apache.kafka.common.compress.Compression c = org.apache.kafka.common.compress.Compression.of(type).build();
        ByteBuffer plain = Batches.batch(c, 1_700_000_000_000L, 50, "key", 200);
        SimpleRecord[] odd = {
            new SimpleRecord(1_700_000_000_000L, (byte[]) null, (byte[]) null),
            new SimpleRecord(1_700_000_000_001L, bytes("k"), new byte[0],
                    new RecordHeader[] {new RecordHeader("h", bytes("v")), new RecordHeader("n", null)}),
            new SimpleRecord(-1L, new byte[0], bytes("no timestamp")),
        };
        ByteBuffer headers = MemoryRecords.withRecords(org.apache.kafka.common.record.internal.RecordBatch.MAGIC_VALUE_V2,
                0L, c, org.apache.kafka.common.record.TimestampType.CREATE_TIME, odd).buffer();
        for (ByteBuffer original : new ByteBuffer[] {plain, headers}) {
            ByteBuffer expected = ByteBuffer.allocate(original.remaining()).put(original.duplicate()).flip();
            AppendResult r = log.append(original, 0);
            assertThat(r.error()).as("%s", r).isEqualTo(Errors.NONE);
            log.flush();
            expected.putLong(RecordBatch.BASE_OFFSET_OFFSET, r.baseOffset());
            expected.putInt(RecordBatch.PARTITION_LEADER_EPOCH_OFFSET, 0);
            ByteBuffer stored = log.read(r.baseOffset(), 1 << 20, true).records().readAll();
            assertThat(stored.limit(expected.limit())).isEqualTo(expected);
        }
    }

    /**
     * {@code max.decompressed.message.bytes}: a record's length field ("k0" and "value-0" make 15
     * bytes) is held to it in compressed batches only.
     */
    @Test
    void shouldRefuseCompressedRecordsLargerThanMaxDecompressedMessageBytes() throws Exception {
        Log log = open(Map.of(LogConfig.MAX_DECOMPRESSED_MESSAGE_BYTES, 14));
        assertRefused(log, batch(Compression.GZIP, 3), Errors.INVALID_RECORD, 0);
        assertThat(log.append(batch(Compression.NONE, 3), 0).error()).isEqualTo(Errors.NONE);
    }

    @Test
    void shouldAcceptCompressedRecordsOfExactlyMaxDecompressedMessageBytes() throws Exception {
        Log log = open(Map.of(LogConfig.MAX_DECOMPRESSED_MESSAGE_BYTES, 15));
        assertThat(log.append(batch(Compression.ZSTD, 3), 0).error()).isEqualTo(Errors.NONE);
        assertThat(log.logEndOffset()).isEqualTo(3);
    }
}
