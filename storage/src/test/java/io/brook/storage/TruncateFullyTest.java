package io.brook.storage;

import io.brook.testkit.Await;
import io.brook.testkit.MutableClock;
import io.brook.wire.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link Log#truncateFullyAndStartAt}: an empty log at the leader's log start, durably. */
class TruncateFullyTest {
    static final long TS = 1_700_000_000_000L;

    @TempDir
    Path tmp;
    LogFixture fx;

    @AfterEach
    void tearDown() throws Exception {
        if (fx != null) {
            fx.close();
        }
    }

    /** A log over several segments, with producer snapshots, an open and an aborted transaction. */
    Log filled() throws Exception {
        fx = new LogFixture(tmp, Map.of(LogConfig.SEGMENT_BYTES, 600));
        Log log = fx.open();
        for (int i = 0; i < 20; i++) {
            assertThat(log.append(Batches.idempotent(7L, (short) 0, i * 2, 2, TS + i), 0).error())
                    .isEqualTo(Errors.NONE);
        }
        log.append(Batches.producerBatch(8L, (short) 0, 0, 1, TS, true), 0);
        log.appendMarker(Batches.abortMarker(8L, (short) 0, TS), 0, false);
        log.append(Batches.producerBatch(9L, (short) 0, 0, 1, TS, true), 0);
        log.flush();
        assertThat(log.segmentCount()).isGreaterThan(2);
        assertThat(log.abortedTransactions(0, log.logEndOffset())).isNotEmpty();
        return log;
    }

    private static void assertEmptyAt(Log log, long offset) {
        assertThat(log.logStartOffset()).isEqualTo(offset);
        assertThat(log.logEndOffset()).isEqualTo(offset);
        assertThat(log.highWatermark()).isEqualTo(offset);
        assertThat(log.lastStableOffset()).isEqualTo(offset);
        assertThat(log.segmentCount()).isEqualTo(1);
        assertThat(log.activeProducers()).isEmpty();
        assertThat(log.inOpenTransaction(9L, (short) 0)).isFalse();
        assertThat(log.abortedTransactions(0, Long.MAX_VALUE)).isEmpty();
        assertThat(log.read(0, 1 << 20, true).error()).isEqualTo(offset > 0 ? Errors.OFFSET_OUT_OF_RANGE : Errors.NONE);
        assertThat(log.read(offset, 1 << 20, true).records()).isNull();
    }

    private List<String> files() throws Exception {
        try (Stream<Path> s = Files.list(fx.dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void shouldStartEmptyAtTheOffsetAndStayThereAfterACrash() throws Exception {
        Log log = filled();
        long oldEnd = log.logEndOffset();
        log.truncateFullyAndStartAt(oldEnd + 1000);
        long start = oldEnd + 1000;
        assertEmptyAt(log, start);
        assertThat(files()).as("no snapshot, no aborted-transaction file, no old segment left")
                .allMatch(f -> f.startsWith(LogSegment.name(start)) || f.endsWith(LogSegment.DELETED_SUFFIX)
                        || f.equals(LogStateFiles.LOG_START_OFFSET_FILE));

        // a crash right after, with the old recovery point: neither the old segments nor offset 0
        log = fx.crashAndReopen(oldEnd);
        assertEmptyAt(log, start);

        // it takes the leader's batches from there, and a producer carries on from them
        ByteBuffer copied = Batches.idempotent(7L, (short) 0, 40, 2, TS);
        copied.putLong(0, start);
        assertThat(log.appendReplicated(copied).error()).isEqualTo(Errors.NONE);
        assertThat(log.append(Batches.idempotent(7L, (short) 0, 42, 1, TS), 1).baseOffset()).isEqualTo(start + 2);
        log.flush();
        log = fx.crashAndReopen(log.durableOffset());
        assertThat(log.logStartOffset()).isEqualTo(start);
        assertThat(log.logEndOffset()).isEqualTo(start + 3);
        assertThat(Batches.readAll(log, start)).extracting(Batches.Rec::offset).containsExactly(start, start + 1,
                start + 2);
        log = fx.reopen();
        assertThat(log.logStartOffset()).isEqualTo(start);
        assertThat(log.logEndOffset()).isEqualTo(start + 3);
    }

    /**
     * At an offset the old log holds (a follower whose data diverged), even the base offset of a
     * segment that has a producer snapshot: that snapshot goes too, else the next load would take
     * the old producers for the new log's.
     */
    @Test
    void shouldForgetTheOldProducersEvenWhenStartingAtAnOldSnapshotsOffset() throws Exception {
        Log log = filled();
        List<Long> bases = log.segments.keySet().stream().toList();
        long at = bases.get(1);
        Await.until("the roll's snapshot is written",
                () -> Files.exists(ProducerStateManager.snapshotFile(fx.dir, at)));
        log.truncateFullyAndStartAt(at);
        assertEmptyAt(log, at);
        log = fx.crashAndReopen(0);
        assertEmptyAt(log, at);
        log = fx.reopen();
        assertEmptyAt(log, at);
        // and at 0, where the old first segment was
        log.truncateFullyAndStartAt(0);
        assertEmptyAt(log, 0);
        log = fx.crashAndReopen(0);
        assertEmptyAt(log, 0);
        assertThat(log.append(Batches.batch(TS, 1, "k"), 0).baseOffset()).isZero();
    }

    /** In a log manager the recovery-point checkpoint names the new start before the call returns, below or above the old one. */
    @Test
    void shouldCheckpointTheNewStartBeforeReturning() throws Exception {
        Path checkpoint = tmp.resolve(LogManager.RECOVERY_POINT_FILE);
        LogManager m = LogManager.open(new LogManagerOptions(tmp).clock(new MutableClock(TS)).backgroundThreads(false)
                .defaults(LogConfig.defaults().with(Map.of(LogConfig.FILE_DELETE_DELAY_MS, 0))));
        Log log = m.getOrCreateLog("t", 0, LogConfig.defaults());
        for (int i = 0; i < 10; i++) {
            AppendResult r = log.append(Batches.batch(TS, 2, "k"), 0);
            log.whenDurable(r.lastOffset() + 1).get(30, TimeUnit.SECONDS);
        }
        m.checkpointRecoveryPoints();
        assertThat(Files.readAllLines(checkpoint, StandardCharsets.UTF_8)).contains("t 0 20");
        log.truncateFullyAndStartAt(5);
        assertThat(Files.readAllLines(checkpoint, StandardCharsets.UTF_8)).contains("t 0 5");
        log.truncateFullyAndStartAt(500);
        assertThat(Files.readAllLines(checkpoint, StandardCharsets.UTF_8)).contains("t 0 500");
        m.crash();
        try (LogManager m2 = LogManager.open(new LogManagerOptions(tmp).clock(new MutableClock(TS))
                .backgroundThreads(false))) {
            Log again = m2.getLog("t", 0);
            assertThat(again.logStartOffset()).isEqualTo(500);
            assertThat(again.logEndOffset()).isEqualTo(500);
            assertThat(again.append(Batches.batch(TS, 1, "k"), 0).baseOffset()).isEqualTo(500);
        }
    }
}
