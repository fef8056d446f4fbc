package io.brook.storage;

import io.brook.testkit.Await;
import io.brook.wire.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An unclean start scans the segment holding the recovery point from a verified position inside
 * it (see {@link LogLoader}), and from its start whenever that position is in doubt; either way
 * the log it opens is the one a full scan opens.
 */
class RecoveryStartTest {
    private static final Map<String, Integer> SMALL_INDEX_INTERVAL = Map.of(LogConfig.INDEX_INTERVAL_BYTES, 100);

    @TempDir
    Path tmp;
    LogFixture fx;
    LogFixture full;

    @AfterEach
    void tearDown() throws Exception {
        if (fx != null) {
            fx.close();
        }
        if (full != null) {
            full.close();
        }
    }

    /** Appends {@code n} flushed batches of 2 records with timestamps that go up and down. */
    private static void fill(Log log, int from, int n) {
        for (int i = from; i < from + n; i++) {
            log.append(Batches.batch(1_000 + (i * 37 % 50) * 10L, 2, "k" + i + "-"), 0);
            log.flush();
        }
    }

    /**
     * A log as a crash loop leaves it: 20 batches, an unclean start (which writes the active
     * segment's index files), 20 more batches made durable, and a crash; returns the recovery
     * point the last checkpoint recorded (the durable offset).
     */
    private long crashLoopLog() throws IOException {
        fx = new LogFixture(tmp.resolve("a"), SMALL_INDEX_INTERVAL);
        Log log = fx.open();
        fill(log, 0, 20);
        log = fx.crashAndReopen(0L);
        assertThat(log.active().recoveryScanStart).isZero();
        fill(log, 20, 20);
        long recoveryPoint = log.durableOffset();
        assertThat(recoveryPoint).isEqualTo(80L);
        fill(log, 40, 3);
        log.closeAbruptly();
        return recoveryPoint;
    }

    private Path file(String suffix) {
        return LogSegment.file(fx.dir, 0L, suffix);
    }

    /** The base offset of the batch at {@code position} of the log file (an index entry names its last offset). */
    private long baseOffsetAt(int position) throws IOException {
        try (FileChannel ch = FileChannel.open(file(LogSegment.LOG_SUFFIX), StandardOpenOption.READ)) {
            ByteBuffer b = ByteBuffer.allocate(8);
            ch.read(b, position);
            return b.getLong(0);
        }
    }

    /** Opens a copy of the crashed log with a full scan (recovery point 0). */
    private Log fullScanOfCopy() throws IOException {
        full = new LogFixture(tmp.resolve("b"), SMALL_INDEX_INTERVAL);
        Files.createDirectories(full.dir);
        try (Stream<Path> files = Files.list(fx.dir)) {
            for (Path f : files.toList()) {
                // a background producer snapshot may be renaming its .tmp file right now: a
                // temporary file is never part of the log (recovery ignores it), and one that
                // vanished between the listing and the copy is such a file
                if (f.getFileName().toString().endsWith(".tmp")) {
                    continue;
                }
                try {
                    Files.copy(f, full.dir.resolve(f.getFileName()));
                } catch (NoSuchFileException e) {
                    // renamed away mid-copy (see above); its final name is in the listing or not needed
                }
            }
        }
        return full.open(0L, false);
    }

    private static List<long[]> indexEntries(LogSegment seg) {
        List<long[]> out = new ArrayList<>();
        for (int i = 0; i < seg.offsetIndex.entries(); i++) {
            out.add(new long[] {seg.offsetIndex.offsetAt(i), seg.offsetIndex.positionAt(i)});
        }
        return out;
    }

    private static void assertSameLog(Log actual, Log expected) throws IOException {
        LogSegment a = actual.active();
        LogSegment e = expected.active();
        assertThat(actual.corruption()).isNull();
        assertThat(actual.logEndOffset()).isEqualTo(expected.logEndOffset());
        assertThat(a.size()).isEqualTo(e.size());
        assertThat(a.maxTimestamp()).isEqualTo(e.maxTimestamp());
        assertThat(a.firstBatchTimestamp()).isEqualTo(e.firstBatchTimestamp());
        assertThat(indexEntries(a)).containsExactlyElementsOf(indexEntries(e));
        assertThat(a.timeIndex.entries()).isEqualTo(e.timeIndex.entries());
        assertThat(a.timeIndex.lastTimestamp()).isEqualTo(e.timeIndex.lastTimestamp());
        assertThat(Batches.readAll(actual, 0)).isEqualTo(Batches.readAll(expected, 0));
        for (long offset = 0; offset < actual.logEndOffset(); offset += 7) {
            assertThat(Batches.readAll(actual, offset)).isEqualTo(Batches.readAll(expected, offset));
        }
    }

    private static void write(Path f, long position, byte[] bytes) throws IOException {
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(bytes), position);
        }
    }

    private static byte[] garbage(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + 7);
        }
        return b;
    }

    @Test
    void shouldScanOnlyFromTheVerifiedIndexedBatchAndOpenWhatAFullScanOpens() throws Exception {
        long recoveryPoint = crashLoopLog();
        long end = Files.size(file(LogSegment.LOG_SUFFIX));
        write(file(LogSegment.LOG_SUFFIX), end, garbage(300));

        // The entry the scan must start at: the last one the unclean start wrote (all below 40).
        ByteBuffer idx = ByteBuffer.wrap(Files.readAllBytes(file(LogSegment.INDEX_SUFFIX)));
        assertThat(idx.remaining()).isGreaterThanOrEqualTo(2 * OffsetIndex.ENTRY_SIZE);
        int lastRel = idx.getInt(idx.limit() - 8);
        int lastPosition = idx.getInt(idx.limit() - 4);
        assertThat(lastRel).isPositive().isLessThan(40);

        Log log = fx.open(recoveryPoint, false);
        LogSegment active = log.active();
        assertThat(active.recoveryScanStart).isEqualTo(lastPosition);
        assertThat(active.recoveryBytesScanned).isEqualTo(end - lastPosition);

        Log reference = fullScanOfCopy();
        assertThat(reference.active().recoveryBytesScanned).isEqualTo(end);
        assertSameLog(log, reference);
        assertThat(log.logEndOffset()).isEqualTo(86L);
        // The log takes appends where the garbage was cut off, and the next unclean start scans
        // only what was written since this one.
        fill(log, 43, 2);
        long size = log.active().size();
        log = fx.crashAndReopen(log.durableOffset());
        assertThat(log.logEndOffset()).isEqualTo(90L);
        assertThat(log.active().recoveryScanStart).isPositive();
        assertThat(log.active().recoveryBytesScanned).isLessThan(size - end + 200);
    }

    @Test
    void shouldScanTheWholeSegmentWhenTheIndexFileHoldsZeros() throws Exception {
        long recoveryPoint = crashLoopLog();
        long indexSize = Files.size(file(LogSegment.INDEX_SUFFIX));
        write(file(LogSegment.INDEX_SUFFIX), indexSize - OffsetIndex.ENTRY_SIZE, new byte[OffsetIndex.ENTRY_SIZE]);
        long end = Files.size(file(LogSegment.LOG_SUFFIX));

        Log log = fx.open(recoveryPoint, false);
        assertThat(log.active().recoveryScanStart).isZero();
        assertThat(log.active().recoveryBytesScanned).isEqualTo(end);
        assertSameLog(log, fullScanOfCopy());
    }

    @Test
    void shouldScanTheWholeSegmentWhenTheIndexedPositionHoldsAnotherBatch() throws Exception {
        long recoveryPoint = crashLoopLog();
        Path index = file(LogSegment.INDEX_SUFFIX);
        long indexSize = Files.size(index);
        ByteBuffer last = ByteBuffer.wrap(Files.readAllBytes(index), (int) indexSize - 8, 8).slice();
        // Same position, an offset two higher: a stale entry naming a batch that is not there.
        write(index, indexSize - OffsetIndex.ENTRY_SIZE, ByteBuffer.allocate(4).putInt(last.getInt(0) + 2).array());
        long end = Files.size(file(LogSegment.LOG_SUFFIX));

        Log log = fx.open(recoveryPoint, false);
        assertThat(log.active().recoveryScanStart).isZero();
        assertThat(log.active().recoveryBytesScanned).isEqualTo(end);
        assertSameLog(log, fullScanOfCopy());
    }

    @Test
    void shouldStartBelowATornIndexedBatchAndCutItOff() throws Exception {
        crashLoopLog();
        Path index = file(LogSegment.INDEX_SUFFIX);
        ByteBuffer idx = ByteBuffer.wrap(Files.readAllBytes(index));
        int startPosition = idx.getInt(idx.limit() - 4);
        int previousPosition = idx.getInt(idx.limit() - 4 - OffsetIndex.ENTRY_SIZE);
        long startOffset = baseOffsetAt(startPosition);
        // A crash tore the batch the last entry names (the first one not yet durable) and all
        // after it. That entry holds the batch's last offset, above the recovery point, so the
        // scan starts at the entry before it, a sound batch, and finds the torn one from there.
        try (FileChannel ch = FileChannel.open(file(LogSegment.LOG_SUFFIX), StandardOpenOption.WRITE)) {
            ch.truncate(startPosition + 30);
        }

        Log log = fx.open(startOffset, false);
        assertThat(log.active().recoveryScanStart).isEqualTo(previousPosition).isPositive();
        assertThat(log.corruption()).isNull();
        assertThat(log.logEndOffset()).isEqualTo(startOffset);
        assertThat(log.active().size()).isEqualTo(startPosition);
        assertThat(Batches.readAll(log, 0)).hasSize((int) startOffset);
        fill(log, 100, 1);
        assertThat(Batches.readAll(log, startOffset)).hasSize(2);
    }

    @Test
    void shouldScanTheWholeSegmentWhenTheBatchAtTheIndexedPositionHasABadChecksum() throws Exception {
        long recoveryPoint = crashLoopLog();
        Path index = file(LogSegment.INDEX_SUFFIX);
        ByteBuffer idx = ByteBuffer.wrap(Files.readAllBytes(index));
        int startPosition = idx.getInt(idx.limit() - 4);
        long startOffset = baseOffsetAt(startPosition);
        Path logFile = file(LogSegment.LOG_SUFFIX);
        try (FileChannel ch = FileChannel.open(logFile, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, startPosition + 70);
            b.put(0, (byte) ~b.get(0)).rewind();
            ch.write(b, startPosition + 70);
        }

        // The full scan finds the bad batch and treats it as before: the active segment's
        // invalid tail is cut off there.
        Log log = fx.open(recoveryPoint, false);
        assertThat(log.active().recoveryScanStart).isZero();
        assertThat(log.active().size()).isEqualTo(startPosition);
        assertThat(log.logEndOffset()).isEqualTo(startOffset);
    }

    private static boolean snapshotAt(Log log, long offset) {
        try {
            return log.producers.snapshotOffsets().contains(offset);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void shouldKeepTheProducerStateAcrossUncleanStartsThatReplayOnlyFromTheirOwnSnapshot() throws Exception {
        fx = new LogFixture(tmp.resolve("a"), SMALL_INDEX_INTERVAL);
        Log log = fx.open();
        int seq = 0;
        for (int i = 0; i < 10; i++) {
            assertThat(log.append(Batches.idempotent(7L, (short) 0, seq, 2, 1_000 + i), 0).error()).isEqualTo(Errors.NONE);
            seq += 2;
            log.flush();
        }
        for (int restart = 0; restart < 3; restart++) {
            long end = log.logEndOffset();
            log = fx.crashAndReopen(restart == 0 ? 0L : end);
            // Each unclean start leaves a snapshot at the log end for the next one to replay from.
            Log opened = log;
            Await.until("a producer snapshot at " + end, () -> snapshotAt(opened, end));
            assertThat(log.append(Batches.idempotent(7L, (short) 0, seq + 1, 2, 2_000), 0).error())
                    .isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
            assertThat(log.append(Batches.idempotent(7L, (short) 0, seq, 2, 2_000), 0).error()).isEqualTo(Errors.NONE);
            seq += 2;
            log.flush();
        }
        assertThat(log.logEndOffset()).isEqualTo(26L);
    }

    @Test
    void shouldScanTheWholeSegmentAfterATruncationEvenWhereTheSameBatchesWereAppendedAgain() throws Exception {
        fx = new LogFixture(tmp.resolve("a"), SMALL_INDEX_INTERVAL);
        Log log = fx.open();
        fill(log, 0, 20);
        log = fx.crashAndReopen(0L);
        assertThat(Files.exists(file(LogSegment.INDEX_SUFFIX))).isTrue();
        long recoveryPoint = log.durableOffset();
        // The same bytes again after a truncation: every old index entry names a batch with its
        // offset again, yet the files predate the truncation (after a power loss the checkpoint
        // may name data appended since that never reached the disk): they are not trusted.
        log.truncateTo(10L);
        log.append(Batches.batch(1_000 + (5 * 37 % 50) * 10L, 2, "k5-"), 0);
        fill(log, 6, 14);
        assertThat(log.logEndOffset()).isEqualTo(recoveryPoint);
        log = fx.crashAndReopen(recoveryPoint);
        assertThat(log.active().recoveryScanStart).isZero();
        assertThat(log.logEndOffset()).isEqualTo(40L);
    }
}
