package io.brook.storage;

import io.brook.wire.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Crash tests: append, damage the files the way a crash or a bad disk does, reopen. Every batch
 * made durable before the damage point must be there, nothing corrupt may be served, and the log
 * must take appends again.
 */
class LogRecoveryTest {
    @TempDir
    Path tmp;
    LogFixture fx;

    @AfterEach
    void tearDown() throws Exception {
        if (fx != null) {
            fx.close();
        }
    }

    /** Appends {@code n} batches of 2 records, flushing each; returns the file position after each batch. */
    private long[] fill(Log log, int n) {
        long[] ends = new long[n];
        for (int i = 0; i < n; i++) {
            log.append(Batches.batch(1000 + i, 2, "k" + i + "-"), 0);
            log.flush();
            ends[i] = log.active().size();
        }
        return ends;
    }

    private Path lastLogFile(Log log) {
        return LogSegment.file(fx.dir, log.segments.lastKey(), LogSegment.LOG_SUFFIX);
    }

    private static void truncateFile(Path f, long size) throws IOException {
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
            ch.truncate(size);
        }
    }

    private static void write(Path f, long position, byte[] bytes) throws IOException {
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(bytes), position);
        }
    }

    private static void flip(Path f, long position) throws IOException {
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, position);
            b.put(0, (byte) ~b.get(0));
            b.rewind();
            ch.write(b, position);
        }
    }

    private void assertIntactPrefix(Log log, int batches) throws IOException {
        assertThat(log.corruption()).isNull();
        assertThat(log.logEndOffset()).isEqualTo(batches * 2L);
        assertThat(log.highWatermark()).isEqualTo(batches * 2L);
        List<Batches.Rec> recs = Batches.readAll(log, 0);
        assertThat(recs).hasSize(batches * 2);
        for (int i = 0; i < recs.size(); i++) {
            assertThat(recs.get(i).offset()).isEqualTo(i);
        }
        AppendResult r = log.append(Batches.batch(9999, 1, "again"), 0);
        assertThat(r.error()).isEqualTo(Errors.NONE);
        assertThat(r.baseOffset()).isEqualTo(batches * 2L);
        log.flush();
        assertThat(Batches.readAll(log, batches * 2L)).hasSize(1);
    }

    @Test
    void shouldTruncateBatchTornInTheMiddle() throws Exception {
        fx = new LogFixture(tmp, Map.of());
        Log log = fx.open();
        long[] ends = fill(log, 5);
        Path f = lastLogFile(log);
        log = fx.crashAndReopenAfter(() -> truncateFile(f, ends[3] + 30), 0);
        assertIntactPrefix(log, 4);
        assertThat(Files.size(f)).isEqualTo(ends[3] + log.active().size() - ends[3]);
    }

    @Test
    void shouldTruncateZeroedTail() throws Exception {
        fx = new LogFixture(tmp, Map.of());
        Log log = fx.open();
        long[] ends = fill(log, 4);
        Path f = lastLogFile(log);
        log = fx.crashAndReopenAfter(() -> write(f, ends[3], new byte[4096]), 0);
        assertIntactPrefix(log, 4);
    }

    @Test
    void shouldTruncateAtBatchWithFlippedByteInLastSegment() throws Exception {
        fx = new LogFixture(tmp, Map.of());
        Log log = fx.open();
        long[] ends = fill(log, 6);
        Path f = lastLogFile(log);
        log = fx.crashAndReopenAfter(() -> flip(f, ends[2] + 70), 0);
        assertIntactPrefix(log, 3);
    }

    @Test
    void shouldReportCorruptionInTheActiveSegmentBelowTheRecoveryPointInsteadOfTruncatingDurableData() throws Exception {
        fx = new LogFixture(tmp, Map.of());
        Log log = fx.open();
        long[] ends = fill(log, 6);
        Path f = lastLogFile(log);
        long end = log.logEndOffset();
        long size = Files.size(f);
        // the fourth batch is damaged, and the recovery point says all six were forced
        log = fx.crashAndReopenAfter(() -> flip(f, ends[2] + 70), end);
        assertThat(log.corruption()).contains(f.toString());
        assertThat(Files.size(f)).as("acknowledged records not cut off").isEqualTo(size);
        assertThat(end).isEqualTo(12);
        assertThat(Batches.records(log.read(0, 1 << 20, true).records())).hasSize(6);
        assertThat(log.read(6, 100, true).error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR);
        assertThat(log.append(Batches.batch(1, 1, "k"), 0).error()).as("no offset handed out twice")
                .isEqualTo(Errors.KAFKA_STORAGE_ERROR);
    }

    @Test
    void shouldTruncateTornTailOfRolledSegmentAboveRecoveryPointAndDropLaterSegments() throws Exception {
        fx = new LogFixture(tmp, Map.of(LogConfig.SEGMENT_BYTES, 300));
        Log log = fx.open();
        fill(log, 12);
        assertThat(log.segmentCount()).isGreaterThan(2);
        long secondBase = log.segments.higherKey(log.segments.firstKey());
        Path f = LogSegment.file(fx.dir, secondBase, LogSegment.LOG_SUFFIX);
        long size = Files.size(f);
        log = fx.crashAndReopenAfter(() -> truncateFile(f, size - 10), secondBase);
        assertThat(log.corruption()).isNull();
        assertThat(log.segmentCount()).isEqualTo(2);
        long end = log.logEndOffset();
        assertThat(end).isGreaterThan(secondBase);
        assertIntactPrefix(log, (int) (end / 2));
    }

    @Test
    void shouldReportCorruptionInOlderSegmentBelowRecoveryPointAndRefuseToServePastIt() throws Exception {
        fx = new LogFixture(tmp, Map.of(LogConfig.SEGMENT_BYTES, 300));
        Log log = fx.open();
        fill(log, 12);
        long firstNext = log.segments.firstEntry().getValue().nextOffset();
        Path f = LogSegment.file(fx.dir, 0, LogSegment.LOG_SUFFIX);
        Files.delete(LogSegment.file(fx.dir, 0, LogSegment.INDEX_SUFFIX));
        long end = log.logEndOffset();
        // The second batch of the first segment is damaged; the recovery point is far above it.
        log = fx.crashAndReopenAfter(() -> flip(f, 120), end);
        assertThat(log.corruption()).contains(f.toString()).contains("position");
        assertThat(log.logEndOffset()).isEqualTo(end);
        assertThat(log.read(0, 1 << 20, true).error()).isEqualTo(Errors.NONE);
        assertThat(Batches.records(log.read(0, 1 << 20, true).records())).hasSize(2);
        assertThat(log.read(2, 100, true).error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR);
        assertThat(log.read(firstNext + 1, 100, true).error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR);
        assertThat(log.append(Batches.batch(1, 1, "k"), 0).error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR);
        assertThat(Files.size(f)).as("nothing deleted").isGreaterThan(200);
        // Truncating above the corruption keeps the log refusing; truncating to it heals it.
        log.truncateTo(end - 1);
        assertThat(log.corruption()).isNotNull();
        log.truncateTo(2);
        assertThat(log.corruption()).isNull();
        assertThat(log.logEndOffset()).isEqualTo(2);
        assertThat(log.append(Batches.batch(1, 1, "k"), 0).baseOffset()).isEqualTo(2);
        log.flush();
        assertThat(Batches.readAll(log, 0)).hasSize(3);
    }

    @Test
    void shouldRebuildDeletedIndexes() throws Exception {
        fx = new LogFixture(tmp, Map.of(LogConfig.SEGMENT_BYTES, 400, LogConfig.INDEX_INTERVAL_BYTES, 50));
        Log log = fx.open();
        fill(log, 12);
        log.close();
        try (var files = Files.list(fx.dir)) {
            for (Path p : files.toList()) {
                if (p.toString().endsWith(".index") || p.toString().endsWith(".timeindex")) {
                    Files.delete(p);
                }
            }
        }
        log = fx.open(0, true);
        assertIntactPrefix(log, 12);
        assertThat(log.offsetForTimestamp(1005, false).offset()).as("batch 4 holds 1004, 1005").isEqualTo(9);
    }

    @Test
    void shouldNotServeGarbageWhenIndexEntriesAreDamaged() throws Exception {
        fx = new LogFixture(tmp, Map.of(LogConfig.SEGMENT_BYTES, 2000, LogConfig.INDEX_INTERVAL_BYTES, 1));
        Log log = fx.open();
        fill(log, 20);
        log.close();
        Path index = LogSegment.file(fx.dir, 0, LogSegment.INDEX_SUFFIX);
        assertThat(Files.size(index)).isGreaterThan(24);
        // Damage the position of the third entry so that it still grows but points mid-batch.
        write(index, 2 * 8 + 4, new byte[] {0, 0, 0, 0});
        ByteBuffer e = ByteBuffer.wrap(Files.readAllBytes(index));
        write(index, 2 * 8 + 4, ByteBuffer.allocate(4).putInt(e.getInt(8 + 4) + 3).array());
        log = fx.open(0, true);
        assertIntactPrefix(log, 20);
        for (long o = 0; o < 40; o++) {
            assertThat(Batches.records(log.read(o, 1, true).records()).get(0).offset()).isLessThanOrEqualTo(o);
        }
    }

    @Test
    void shouldRebuildIndexWithGarbageBytes() throws Exception {
        fx = new LogFixture(tmp, Map.of(LogConfig.SEGMENT_BYTES, 2000, LogConfig.INDEX_INTERVAL_BYTES, 1));
        Log log = fx.open();
        fill(log, 10);
        log.close();
        write(LogSegment.file(fx.dir, 0, LogSegment.INDEX_SUFFIX), 0, new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9});
        write(LogSegment.file(fx.dir, 0, LogSegment.TIME_INDEX_SUFFIX), 0, new byte[] {9, 9, 9});
        log = fx.open(0, true);
        assertIntactPrefix(log, 10);
    }

    @Test
    void shouldRollBackUncommittedCleanedFileAndCompleteCommittedSwap() throws Exception {
        fx = new LogFixture(tmp, Map.of(LogConfig.SEGMENT_BYTES, 300));
        Log log = fx.open();
        fill(log, 12);
        long second = log.segments.higherKey(0L);
        log.close();
        // A half-written cleaned file: never committed, must vanish.
        Path cleaned = LogSegment.file(fx.dir, 0, LogSegment.LOG_SUFFIX + LogSegment.CLEANED_SUFFIX);
        Files.write(cleaned, new byte[] {1, 2, 3});
        // A committed swap whose content equals the original segment: must replace it.
        Path seg = LogSegment.file(fx.dir, second, LogSegment.LOG_SUFFIX);
        Path swap = LogSegment.file(fx.dir, second, LogSegment.LOG_SUFFIX + LogSegment.SWAP_SUFFIX);
        Files.copy(seg, swap);
        Files.move(seg, LogSegment.file(fx.dir, second, LogSegment.LOG_SUFFIX + LogSegment.DELETED_SUFFIX));
        log = fx.open(0, true);
        assertThat(cleaned).doesNotExist();
        assertThat(swap).doesNotExist();
        assertThat(seg).exists();
        assertIntactPrefix(log, 12);
    }

    @Test
    void shouldKeepDurableBatchesAfterCrashWithoutCleanShutdown() throws Exception {
        fx = new LogFixture(tmp, Map.of(LogConfig.SEGMENT_BYTES, 500));
        Log log = fx.open();
        fill(log, 15);
        log = fx.crashAndReopenAfter(() -> { }, log.durableOffset());
        assertIntactPrefix(log, 15);
    }

    @Test
    void shouldNeitherRebuildNorWarnForTheIndexesOfANewOrEmptyLog() throws Exception {
        fx = new LogFixture(tmp, Map.of());
        Log log = fx.open();
        assertThat(log.indexRebuilds).isZero();
        log = fx.reopen();
        assertThat(log.indexRebuilds).isZero();
        log = fx.crashAndReopen(0L);
        assertThat(log.indexRebuilds).isZero();
        assertThat(log.logEndOffset()).isZero();
        // A segment holding data whose index is gone is rebuilt.
        log.append(Batches.batch(1000, 2, "k"), 0);
        log.close();
        Files.deleteIfExists(LogSegment.file(fx.dir, 0L, LogSegment.INDEX_SUFFIX));
        log = fx.open();
        assertThat(log.indexRebuilds).isEqualTo(1);
        assertThat(log.logEndOffset()).isEqualTo(2);
    }
}
