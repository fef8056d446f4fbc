package io.brook.storage;

import io.brook.wire.protocol.Errors;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class LogTest {
    @TempDir
    Path tmp;
    LogFixture fx;

    LogFixture fixture(Map<String, ?> settings) {
        fx = new LogFixture(tmp, settings);
        return fx;
    }

    @AfterEach
    void tearDown() throws Exception {
        if (fx != null) {
            fx.close();
        }
    }

    @Test
    void shouldFindTheBatchOfATailingReadWithOneHeaderRead() throws Exception {
        // 1 record per batch, an index entry only every 64 KiB: without help a read of the newest
        // batch scans every header since the last index entry
        Log log = fixture(Map.of(LogConfig.INDEX_INTERVAL_BYTES, 65_536)).open();
        for (int i = 0; i < 200; i++) {
            log.append(Batches.batch(1000 + i, 1, "k" + i), 0);
        }
        log.flush();
        LogSegment seg = log.active();
        long hw = log.highWatermark();
        log.append(Batches.batch(5000, 1, "new"), 0);
        log.flush();
        int before = seg.headerReads;
        List<Batches.Rec> tail = Batches.records(log.read(hw, 1 << 20, true).records());
        assertThat(tail).extracting(Batches.Rec::key).containsExactly("new0");
        assertThat(seg.headerReads - before).as("header reads for a read from the last high watermark").isEqualTo(1);

        // an offset older than the 32 remembered starts is still found, by scanning
        before = seg.headerReads;
        assertThat(Batches.records(log.read(100, 1 << 20, true).records()).get(0).offset()).isEqualTo(100);
        assertThat(seg.headerReads - before).isGreaterThan(50);

        // truncation forgets the remembered starts; what is appended after it is found again
        log.truncateTo(150);
        log.append(Batches.batch(6000, 1, "again"), 0);
        log.flush();
        assertThat(Batches.records(log.read(150, 1 << 20, true).records())).extracting(Batches.Rec::key)
                .containsExactly("again0");
        assertThat(Batches.readAll(log, 0)).hasSize(151);
    }

    @Test
    void shouldAssignOffsetsAndEpochAndStoreBatchesUnchanged() throws Exception {
        Log log = fixture(Map.of()).open();
        ByteBuffer b1 = Batches.batch(1000, 3, "k");
        ByteBuffer b2 = Batches.batch(2000, 2, "k");
        AppendResult r1 = log.append(b1.duplicate(), 7);
        AppendResult r2 = log.append(b2.duplicate(), 7);
        assertThat(r1.error()).isEqualTo(Errors.NONE);
        assertThat(r1.baseOffset()).isZero();
        assertThat(r1.lastOffset()).isEqualTo(2);
        assertThat(r2.baseOffset()).isEqualTo(3);
        assertThat(log.logEndOffset()).isEqualTo(5);
        log.flush();
        LogReadResult read = log.read(0, Integer.MAX_VALUE, true);
        List<MutableRecordBatch> batches = Batches.batches(read.records());
        assertThat(batches).hasSize(2);
        assertThat(batches.get(0).baseOffset()).isZero();
        assertThat(batches.get(1).baseOffset()).isEqualTo(3);
        assertThat(batches.get(1).partitionLeaderEpoch()).isEqualTo(7);
        batches.forEach(MutableRecordBatch::ensureValid);
        ByteBuffer all = read.records().readAll();
        // Everything from the magic byte on is byte-for-byte what the producer sent.
        ByteBuffer expected = b1.duplicate();
        expected.position(16);
        ByteBuffer actual = all.duplicate().limit(b1.remaining()).position(16);
        assertThat(actual).isEqualTo(expected);
    }

    @Test
    void shouldServeOnlyDurableDataWhenFlushOnAck() throws Exception {
        Log log = fixture(Map.of()).open();
        log.append(Batches.batch(1000, 3, "k"), 0);
        assertThat(log.logEndOffset()).isEqualTo(3);
        assertThat(log.highWatermark()).isZero();
        assertThat(log.read(0, 1 << 20, true).records()).isNull();
        assertThat(log.whenDurable(3)).isNotDone();
        log.flush();
        assertThat(log.whenDurable(3)).isDone();
        assertThat(log.highWatermark()).isEqualTo(3);
        assertThat(Batches.records(log.read(0, 1 << 20, true).records())).hasSize(3);
    }

    @Test
    void shouldCompleteDurabilityWaitersOnlyWhenFlushCoversThem() throws Exception {
        Log log = fixture(Map.of()).open();
        log.append(Batches.batch(1000, 1, "k"), 0);
        var first = log.whenDurable(1);
        log.flush();
        log.append(Batches.batch(1000, 1, "k"), 0);
        var second = log.whenDurable(2);
        assertThat(first).isCompleted();
        assertThat(second).isNotDone();
        log.flush();
        assertThat(second).isCompleted();
    }

    @Test
    void shouldMakeHighWatermarkTheLogEndWhenFlushOnAckIsOff() throws Exception {
        Log log = fixture(Map.of(LogConfig.FLUSH_ON_ACK, false)).open();
        log.append(Batches.batch(1000, 3, "k"), 0);
        assertThat(log.highWatermark()).isEqualTo(3);
        assertThat(log.durableOffset()).isZero();
        assertThat(log.whenDurable(3)).isDone();
        assertThat(Batches.records(log.read(1, 1 << 20, true).records())).hasSize(3);
    }

    @Test
    void shouldReadFromBatchContainingOffsetAtEveryBoundary() throws Exception {
        Log log = fixture(Map.of(LogConfig.SEGMENT_BYTES, 600, LogConfig.INDEX_INTERVAL_BYTES, 100)).open();
        int total = 0;
        for (int i = 0; i < 40; i++) {
            Compression c = i % 3 == 0 ? Compression.gzip().build() : Compression.NONE;
            int n = 1 + i % 4;
            log.append(Batches.batch(c, 1000 + total, n, "k", 20), 0);
            total += n;
        }
        log.flush();
        assertThat(log.segmentCount()).isGreaterThan(3);
        for (long o = 0; o < total; o++) {
            LogReadResult r = log.read(o, 1, true);
            assertThat(r.error()).isEqualTo(Errors.NONE);
            List<MutableRecordBatch> bs = Batches.batches(r.records());
            assertThat(bs).as("offset %d", o).hasSize(1);
            assertThat(bs.get(0).baseOffset()).isLessThanOrEqualTo(o);
            assertThat(bs.get(0).lastOffset()).isGreaterThanOrEqualTo(o);
            List<Batches.Rec> all = Batches.records(log.read(o, Integer.MAX_VALUE, true).records());
            assertThat(all.get(all.size() - 1).offset()).isLessThan(total);
        }
        assertThat(log.read(total, 100, true).records()).isNull();
        assertThat(log.read(total, 100, true).error()).isEqualTo(Errors.NONE);
        assertThat(log.read(total + 1, 100, true).error()).isEqualTo(Errors.OFFSET_OUT_OF_RANGE);
        assertThat(log.read(-1, 100, true).error()).isEqualTo(Errors.OFFSET_OUT_OF_RANGE);
    }

    @Test
    void shouldReturnEveryRecordWhenReadingSegmentAfterSegment() throws Exception {
        Log log = fixture(Map.of(LogConfig.SEGMENT_BYTES, 500, LogConfig.INDEX_INTERVAL_BYTES, 1)).open();
        for (int i = 0; i < 30; i++) {
            log.append(Batches.batch(1000 + i, 2, "k"), 0);
        }
        log.flush();
        long next = 0;
        int reads = 0;
        while (next < log.highWatermark()) {
            List<Batches.Rec> recs = Batches.records(log.read(next, 300, true).records());
            assertThat(recs).isNotEmpty();
            assertThat(recs.get(0).offset()).isLessThanOrEqualTo(next);
            next = recs.get(recs.size() - 1).offset() + 1;
            reads++;
        }
        assertThat(next).isEqualTo(60);
        assertThat(reads).isGreaterThan(3);
    }

    @Test
    void shouldHonourByteLimitButReturnAtLeastOneBatch() throws Exception {
        Log log = fixture(Map.of()).open();
        ByteBuffer big = Batches.batch(Compression.NONE, 1000, 5, "k", 500);
        int size = big.remaining();
        log.append(big, 0);
        log.append(Batches.batch(2000, 1, "k"), 0);
        log.flush();
        assertThat(log.read(0, 10, true).sizeInBytes()).isEqualTo(size);
        assertThat(log.read(0, 10, false).records()).isNull();
        assertThat(log.read(0, size + 5, true).sizeInBytes()).isEqualTo(size + 5);
    }

    @Test
    void shouldServeEmptyLog() throws Exception {
        Log log = fixture(Map.of()).open();
        assertThat(log.read(0, 100, true).error()).isEqualTo(Errors.NONE);
        assertThat(log.read(0, 100, true).records()).isNull();
        assertThat(log.offsetForTimestamp(0, false)).isNull();
        assertThat(log.offsetForTimestamp(Log.LATEST_TIMESTAMP, false).offset()).isZero();
        assertThat(log.offsetForTimestamp(Log.EARLIEST_TIMESTAMP, false).offset()).isZero();
        assertThat(log.offsetForTimestamp(Log.MAX_TIMESTAMP, false).offset()).isEqualTo(-1);
    }

    @Test
    void shouldRollBySegmentMs() throws Exception {
        LogFixture f = fixture(Map.of(LogConfig.SEGMENT_MS, 1000));
        Log log = f.open();
        long t = f.clock.millis();
        log.append(Batches.batch(t, 1, "k"), 0);
        log.append(Batches.batch(t + 500, 1, "k"), 0);
        assertThat(log.segmentCount()).isEqualTo(1);
        log.append(Batches.batch(t + 1500, 1, "k"), 0);
        assertThat(log.segmentCount()).isEqualTo(2);
        assertThat(Files.exists(f.dir.resolve("00000000000000000002.log"))).isTrue();
    }

    @Test
    void shouldRollBySegmentBytesAndNameSegmentsByBaseOffset() throws Exception {
        LogFixture f = fixture(Map.of(LogConfig.SEGMENT_BYTES, 300));
        Log log = f.open();
        for (int i = 0; i < 10; i++) {
            log.append(Batches.batch(1000, 2, "k"), 0);
        }
        assertThat(log.segmentCount()).isGreaterThan(2);
        for (long base : log.segments.keySet()) {
            assertThat(f.dir.resolve(LogSegment.name(base) + ".log")).exists();
            assertThat(LogSegment.name(base)).hasSize(20);
        }
        log.flush();
        assertThat(f.dir.resolve("00000000000000000000.index")).exists();
        assertThat(f.dir.resolve("00000000000000000000.timeindex")).exists();
    }

    @Test
    void shouldFindOffsetsByTimestamp() throws Exception {
        Log log = fixture(Map.of(LogConfig.SEGMENT_BYTES, 400, LogConfig.INDEX_INTERVAL_BYTES, 50)).open();
        // offsets 0..9 at timestamps 100..109 (compressed), 10..19 at 200..209, 20..29 at 150..159
        log.append(Batches.batch(Compression.gzip().build(), 100, 10, "k", 5), 0);
        log.append(Batches.batch(Compression.NONE, 200, 10, "k", 5), 0);
        log.append(Batches.batch(Compression.NONE, 150, 10, "k", 5), 0);
        log.flush();
        assertThat(log.offsetForTimestamp(0, false)).isEqualTo(new TimestampOffset(0, 100, 0));
        assertThat(log.offsetForTimestamp(105, false)).isEqualTo(new TimestampOffset(5, 105, 0));
        assertThat(log.offsetForTimestamp(110, false)).isEqualTo(new TimestampOffset(10, 200, 0));
        assertThat(log.offsetForTimestamp(155, false)).isEqualTo(new TimestampOffset(10, 200, 0));
        assertThat(log.offsetForTimestamp(209, false)).isEqualTo(new TimestampOffset(19, 209, 0));
        assertThat(log.offsetForTimestamp(210, false)).isNull();
        assertThat(log.offsetForTimestamp(Log.MAX_TIMESTAMP, false)).isEqualTo(new TimestampOffset(19, 209, 0));
        assertThat(log.offsetForTimestamp(Log.LATEST_TIMESTAMP, false).offset()).isEqualTo(30);
        assertThat(log.offsetForTimestamp(Log.EARLIEST_TIMESTAMP, false).offset()).isZero();
        log.deleteRecordsBefore(7);
        assertThat(log.offsetForTimestamp(0, false)).isEqualTo(new TimestampOffset(7, 107, 0));
        assertThat(log.offsetForTimestamp(Log.EARLIEST_TIMESTAMP, false).offset()).isEqualTo(7);
    }

    @Test
    void shouldRejectKeylessRecordOnCompactedTopic() throws Exception {
        Log log = fixture(Map.of(LogConfig.CLEANUP_POLICY, "compact")).open();
        AppendResult r = log.append(Batches.batch(1000, 2, null), 0);
        assertThat(r.error()).isEqualTo(Errors.INVALID_RECORD);
        assertThat(r.recordErrors()).extracting(RecordError::batchIndex).containsExactly(0, 1);
        assertThat(r.recordErrors().get(0).message()).startsWith("Compacted topic cannot accept message without key");
        assertThat(log.logEndOffset()).isZero();
        assertThat(log.append(Batches.batch(1000, 2, "k"), 0).error()).isEqualTo(Errors.NONE);
    }

    @Test
    void shouldRejectBatchLargerThanMaxMessageBytes() throws Exception {
        Log log = fixture(Map.of(LogConfig.MAX_MESSAGE_BYTES, 200)).open();
        AppendResult r = log.append(Batches.batch(Compression.NONE, 1000, 5, "k", 100), 0);
        assertThat(r.error()).isEqualTo(Errors.MESSAGE_TOO_LARGE);
        assertThat(log.logEndOffset()).isZero();
    }

    @Test
    void shouldRejectMoreThanOneBatchInOneAppend() throws Exception {
        Log log = fixture(Map.of()).open();
        ByteBuffer a = Batches.batch(1000, 1, "k");
        ByteBuffer b = Batches.batch(1000, 1, "k");
        ByteBuffer both = ByteBuffer.allocate(a.remaining() + b.remaining()).put(a).put(b).flip();
        assertThat(log.append(both, 0).error()).isEqualTo(Errors.INVALID_RECORD);
    }

    @Test
    void shouldSetLogAppendTimeOnReadOnlyBufferWithValidCrc() throws Exception {
        LogFixture f = fixture(Map.of(LogConfig.MESSAGE_TIMESTAMP_TYPE, "LogAppendTime"));
        Log log = f.open();
        ByteBuffer original = Batches.batch(5, 3, "k");
        ByteBuffer ro = original.asReadOnlyBuffer();
        AppendResult r = log.append(ro, 3);
        assertThat(r.logAppendTimeMs()).isEqualTo(f.clock.millis());
        assertThat(ro.position()).isZero();
        log.append(Batches.batch(5, 1, "k"), 3);
        log.flush();
        List<MutableRecordBatch> bs = Batches.batches(log.read(0, 1 << 20, true).records());
        assertThat(bs).hasSize(2);
        for (MutableRecordBatch b : bs) {
            b.ensureValid();
            assertThat(b.maxTimestamp()).isEqualTo(f.clock.millis());
            assertThat(b.partitionLeaderEpoch()).isEqualTo(3);
        }
        assertThat(bs.get(1).baseOffset()).isEqualTo(3);
        assertThat(log.offsetForTimestamp(f.clock.millis(), false).offset()).isZero();
    }

    @Test
    void shouldKeepEverythingAcrossCleanReopen() throws Exception {
        LogFixture f = fixture(Map.of(LogConfig.SEGMENT_BYTES, 400, LogConfig.INDEX_INTERVAL_BYTES, 60));
        Log log = f.open();
        for (int i = 0; i < 20; i++) {
            log.append(Batches.batch(1000 + i * 10, 3, "k"), 0);
        }
        log.flush();
        List<Batches.Rec> before = Batches.readAll(log, 0);
        assertThat(before).hasSize(60);
        log = f.reopen();
        assertThat(log.logEndOffset()).isEqualTo(60);
        assertThat(log.highWatermark()).isEqualTo(60);
        List<Batches.Rec> after = new java.util.ArrayList<>();
        long next = 0;
        while (next < 60) {
            List<Batches.Rec> part = Batches.records(log.read(next, 1, true).records());
            after.addAll(part.stream().filter(r -> r.offset() >= 0).toList());
            next = part.get(part.size() - 1).offset() + 1;
        }
        assertThat(after).isEqualTo(before);
        assertThat(log.offsetForTimestamp(1105, false).offset()).isEqualTo(33);
        assertThat(log.append(Batches.batch(5000, 1, "k"), 0).baseOffset()).isEqualTo(60);
    }

    @Test
    void shouldAdvanceLogStartOffsetWithDeleteRecordsAndDropWholeSegments() throws Exception {
        LogFixture f = fixture(Map.of(LogConfig.SEGMENT_BYTES, 300));
        Log log = f.open();
        for (int i = 0; i < 10; i++) {
            log.append(Batches.batch(1000, 2, "k"), 0);
        }
        assertThat(log.deleteRecordsBefore(5)).isEqualTo(Errors.OFFSET_OUT_OF_RANGE);
        log.flush();
        int segmentsBefore = log.segmentCount();
        assertThat(log.deleteRecordsBefore(11)).isEqualTo(Errors.NONE);
        assertThat(log.logStartOffset()).isEqualTo(11);
        assertThat(log.segmentCount()).isLessThan(segmentsBefore);
        assertThat(log.read(10, 100, true).error()).isEqualTo(Errors.OFFSET_OUT_OF_RANGE);
        assertThat(Batches.records(log.read(11, 100, true).records()).get(0).offset()).isLessThanOrEqualTo(11);
        log = f.reopen();
        assertThat(log.logStartOffset()).isEqualTo(11);
        assertThat(log.deleteRecordsBefore(-1)).isEqualTo(Errors.NONE);
        assertThat(log.logStartOffset()).isEqualTo(20);
    }

    @Test
    void shouldTruncateToOffsetRemovingWholeBatches() throws Exception {
        LogFixture f = fixture(Map.of(LogConfig.SEGMENT_BYTES, 300));
        Log log = f.open();
        for (int i = 0; i < 10; i++) {
            log.append(Batches.batch(1000 + i, 2, "k"), 0);
        }
        log.flush();
        log.truncateTo(9);
        assertThat(log.logEndOffset()).isEqualTo(8);
        assertThat(log.highWatermark()).isEqualTo(8);
        List<Batches.Rec> recs = Batches.records(log.read(0, Integer.MAX_VALUE, true).records());
        assertThat(recs.get(recs.size() - 1).offset()).isLessThan(8);
        assertThat(log.append(Batches.batch(5000, 1, "k"), 0).baseOffset()).isEqualTo(8);
        log.flush();
        assertThat(log.offsetForTimestamp(5000, false).offset()).isEqualTo(8);
        log = f.reopen();
        assertThat(log.logEndOffset()).isEqualTo(9);
        log.truncateTo(0);
        assertThat(log.logEndOffset()).isZero();
        assertThat(log.read(0, 100, true).records()).isNull();
    }

    @Test
    void shouldRejectTimestampsOutsideConfiguredRange() throws Exception {
        LogFixture f = fixture(Map.of(LogConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS, 1000,
                LogConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS, 500));
        Log log = f.open();
        long now = f.clock.millis();
        assertThat(log.append(Batches.batch(now - 1001, 1, "k"), 0).error()).isEqualTo(Errors.INVALID_TIMESTAMP);
        assertThat(log.append(Batches.batch(now + 501, 1, "k"), 0).error()).isEqualTo(Errors.INVALID_TIMESTAMP);
        assertThat(log.append(Batches.batch(now - 1000, 1, "k"), 0).error()).isEqualTo(Errors.NONE);
        assertThat(log.logEndOffset()).isEqualTo(1);
    }

    @Test
    void shouldForceOnlySegmentsChangedSinceTheLastFlushWhenClosing() throws Exception {
        Log log = fixture(Map.of(LogConfig.SEGMENT_BYTES, 300)).open();
        for (int i = 0; i < 10; i++) {
            log.append(Batches.batch(1000 + i, 2, "k"), 0);
        }
        log = fx.reopen();
        assertThat(log.segmentCount()).isGreaterThan(2);
        List<LogSegment> before = List.copyOf(log.segments.values());
        log.append(Batches.batch(2000, 2, "k"), 0);
        LogSegment changed = log.active();
        log.close();
        assertThat(changed.forceCount).isEqualTo(1);
        for (LogSegment s : before) {
            if (s != changed) {
                assertThat(s.forceCount).as("%s", s).isZero();
            }
        }
        log = fx.open();
        assertThat(log.logEndOffset()).isEqualTo(22);
        assertThat(Batches.readAll(log, 0)).hasSize(22);
    }
}
