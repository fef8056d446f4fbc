package io.brook.storage;

import io.brook.wire.protocol.Errors;
import org.apache.kafka.common.compress.Compression;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class CompactionTest {
    @TempDir
    Path tmp;
    LogFixture fx;
    final LogCleaner cleaner = new LogCleaner();
    /** Where {@link #open} puts the log; null = {@link #tmp}. */
    Path root;

    @AfterEach
    void tearDown() throws Exception {
        fx.close();
    }

    private Log open(Map<String, ?> extra) throws Exception {
        Map<String, Object> s = new HashMap<>(Map.of(LogConfig.CLEANUP_POLICY, "compact", LogConfig.SEGMENT_BYTES, 400,
                LogConfig.MIN_CLEANABLE_DIRTY_RATIO, 0.0, LogConfig.DELETE_RETENTION_MS, 10_000));
        s.putAll(extra);
        fx = new LogFixture(root == null ? tmp : root, s);
        return fx.open();
    }

    /**
     * Twenty records of other keys ("other0".. or, with {@code firstKey}, that key first), so that
     * what was written before lies in closed segments the cleaner takes.
     */
    private void putFillers(Log log, String firstKey) {
        for (int i = 0; i < 20; i++) {
            put(log, i == 0 && firstKey != null ? firstKey : "other" + i, "x" + i);
        }
    }

    private void put(Log log, String key, String value) {
        AppendResult r = log.append(Batches.keyed(fx.clock.millis(), new String[] {key}, new String[] {value}), 0);
        assertThat(r.error()).isEqualTo(Errors.NONE);
    }

    @Test
    void shouldKeepNewestValuePerKeyAtItsOriginalOffset() throws Exception {
        Log log = open(Map.of());
        for (int i = 0; i < 30; i++) {
            put(log, "k" + (i % 3), "v" + i);
        }
        log.flush();
        List<Batches.Rec> before = Batches.readAll(log, 0);
        int rewritten = cleaner.clean(log, fx.clock.millis());
        assertThat(rewritten).isPositive();
        List<Batches.Rec> after = Batches.readAll(log, 0);
        assertThat(after.size()).isLessThan(before.size());
        assertThat(before).containsAll(after);
        // Offsets strictly increase: an ordered subsequence.
        for (int i = 1; i < after.size(); i++) {
            assertThat(after.get(i).offset()).isGreaterThan(after.get(i - 1).offset());
        }
        // Within the cleaned segments each key appears once; the newest value of each key survives.
        Map<String, Batches.Rec> newest = new HashMap<>();
        before.forEach(r -> newest.put(r.key(), r));
        assertThat(after).containsAll(newest.values());
        assertThat(log.logEndOffset()).isEqualTo(30);
        assertThat(log.append(Batches.keyed(0, new String[] {"x"}, new String[] {"y"}), 0).baseOffset())
                .isEqualTo(30);
    }

    @Test
    void shouldNeverTouchTheActiveSegment() throws Exception {
        Log log = open(Map.of(LogConfig.SEGMENT_BYTES, 100_000));
        for (int i = 0; i < 30; i++) {
            put(log, "k", "v" + i);
        }
        log.flush();
        assertThat(cleaner.clean(log, fx.clock.millis())).isZero();
        assertThat(Batches.readAll(log, 0)).hasSize(30);
    }

    @Test
    void shouldCompactCompressedBatchesKeepingCodec() throws Exception {
        Log log = open(Map.of());
        for (int i = 0; i < 8; i++) {
            log.append(Batches.batch(Compression.lz4().build(), fx.clock.millis(), 5, "k", 5), 0);
        }
        log.flush();
        cleaner.clean(log, fx.clock.millis());
        List<Batches.Rec> after = Batches.readAll(log, 0);
        List<String> cleanedKeys = after.stream().filter(r -> r.offset() < log.active().baseOffset)
                .map(Batches.Rec::key).toList();
        assertThat(cleanedKeys).isNotEmpty().doesNotHaveDuplicates();
        assertThat(after.size()).isLessThan(40);
        List<org.apache.kafka.common.record.internal.MutableRecordBatch> batches = new java.util.ArrayList<>();
        for (long next = 0; next < log.highWatermark(); ) {
            var part = Batches.batches(log.read(next, 1 << 20, true).records());
            batches.addAll(part);
            next = part.get(part.size() - 1).lastOffset() + 1;
        }
        assertThat(batches).anyMatch(b -> b.countOrNull() != null && b.countOrNull() > 0);
        for (var b : batches) {
            if (b.countOrNull() != null && b.countOrNull() > 0) {
                assertThat(b.compressionType().name).isEqualTo("lz4");
            }
        }
    }

    @Test
    void shouldRemoveTombstonesOnlyAfterDeleteRetention() throws Exception {
        Log log = open(Map.of());
        for (int i = 0; i < 10; i++) {
            put(log, "a", "v" + i);
            put(log, "b", "w" + i);
        }
        put(log, "a", null);
        for (int i = 0; i < 10; i++) {
            put(log, "c", "x" + i);
        }
        log.flush();
        long t0 = fx.clock.millis();
        cleaner.clean(log, t0);
        assertThat(Batches.readAll(log, 0)).anyMatch(r -> r.key().equals("a") && r.value() == null);
        assertThat(Batches.readAll(log, 0)).noneMatch(r -> r.key().equals("a") && r.value() != null);
        fx.clock.advance(9_999);
        cleaner.clean(log, fx.clock.millis());
        assertThat(Batches.readAll(log, 0)).anyMatch(r -> r.key().equals("a") && r.value() == null);
        fx.clock.advance(1);
        cleaner.clean(log, fx.clock.millis());
        assertThat(Batches.readAll(log, 0)).noneMatch(r -> r.key().equals("a"));
        assertThat(Batches.readAll(log, 0)).anyMatch(r -> r.key().equals("b") && r.value().equals("w9"));
    }

    @Test
    void shouldHonourMinCompactionLag() throws Exception {
        Log log = open(Map.of(LogConfig.MIN_COMPACTION_LAG_MS, 60_000));
        for (int i = 0; i < 30; i++) {
            put(log, "k", "v" + i);
        }
        log.flush();
        assertThat(cleaner.clean(log, fx.clock.millis())).isZero();
        assertThat(cleaner.clean(log, fx.clock.millis() + 60_000)).isPositive();
    }

    @Test
    void shouldKeepTransactionMarkersIntact() throws Exception {
        Log log = open(Map.of());
        log.append(Batches.producerBatch(7, (short) 0, 0, 3, fx.clock.millis(), true), 0);
        log.append(Batches.commitMarker(7, (short) 0, fx.clock.millis()), 0);
        for (int i = 0; i < 20; i++) {
            put(log, "k0", "v" + i);
        }
        log.flush();
        cleaner.clean(log, fx.clock.millis());
        List<org.apache.kafka.common.record.internal.MutableRecordBatch> batches = new java.util.ArrayList<>();
        for (long next = 0; next < log.highWatermark(); ) {
            var part = Batches.batches(log.read(next, 1 << 20, true).records());
            batches.addAll(part);
            next = part.get(part.size() - 1).lastOffset() + 1;
        }
        assertThat(batches).anyMatch(b -> b.isControlBatch() && b.baseOffset() == 3);
    }

    @Test
    void shouldSurviveRestartAfterCompaction() throws Exception {
        Log log = open(Map.of());
        for (int i = 0; i < 30; i++) {
            put(log, "k" + (i % 4), "v" + i);
        }
        log.flush();
        cleaner.clean(log, fx.clock.millis());
        List<Batches.Rec> after = Batches.readAll(log, 0);
        try (var files = Files.list(fx.dir)) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .noneMatch(n -> n.endsWith(".cleaned") || n.endsWith(".swap") || n.endsWith(".deleted"));
        }
        log = fx.crashAndReopenAfter(() -> { }, 0);
        assertThat(Batches.readAll(log, 0)).isEqualTo(after);
    }

    @Test
    void shouldMergeSmallSegmentsIntoOneAndKeepOffsetsContinuous() throws Exception {
        Log log = open(Map.of(LogConfig.SEGMENT_BYTES, 300));
        for (int i = 0; i < 60; i++) {
            put(log, "k" + (i % 3), "v" + i);
        }
        log.flush();
        int before = log.segmentCount();
        long firstNext = log.segments.firstEntry().getValue().nextOffset();
        cleaner.clean(log, fx.clock.millis());
        // The first pass shrinks the segments, the next one merges what now fits together.
        cleaner.forget(log);
        cleaner.clean(log, fx.clock.millis());
        assertThat(log.segmentCount()).isLessThan(before / 2);
        // The rewritten group still ends at its last offset: the next segment starts right after.
        LogSegment merged = log.segments.firstEntry().getValue();
        Long following = log.segments.higherKey(merged.baseOffset);
        assertThat(merged.nextOffset()).isEqualTo(following);
        assertThat(merged.nextOffset()).isGreaterThanOrEqualTo(firstNext);
        List<Batches.Rec> after = Batches.readAll(log, 0);
        log = fx.reopen();
        assertThat(Batches.readAll(log, 0)).isEqualTo(after);
    }

    @Test
    void shouldCompleteInterruptedMultiSegmentSwapAtStartup() throws Exception {
        Log log = open(Map.of(LogConfig.SEGMENT_BYTES, 300));
        for (int i = 0; i < 40; i++) {
            put(log, "k" + (i % 2), "v" + i);
        }
        log.flush();
        List<LogSegment> closed = log.closedSegments();
        assertThat(closed.size()).isGreaterThan(2);
        List<Batches.Rec> before = Batches.readAll(log, 0);
        long groupEnd = closed.get(1).nextOffset() - 1;
        log.close();
        // A committed swap file replacing the first two segments: a copy of their bytes, which
        // ends with the batch holding the group's last offset.
        Path swap = LogSegment.file(fx.dir, 0, LogSegment.LOG_SUFFIX + LogSegment.SWAP_SUFFIX);
        byte[] a = Files.readAllBytes(LogSegment.file(fx.dir, 0, LogSegment.LOG_SUFFIX));
        byte[] b = Files.readAllBytes(LogSegment.file(fx.dir, closed.get(1).baseOffset, LogSegment.LOG_SUFFIX));
        byte[] both = new byte[a.length + b.length];
        System.arraycopy(a, 0, both, 0, a.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        Files.write(swap, both);
        log = fx.open(0, true);
        assertThat(swap).doesNotExist();
        assertThat(LogSegment.file(fx.dir, closed.get(1).baseOffset, LogSegment.LOG_SUFFIX)).doesNotExist();
        assertThat(log.segments.firstEntry().getValue().nextOffset()).isEqualTo(groupEnd + 1);
        assertThat(Batches.readAll(log, 0)).isEqualTo(before);
    }

    private List<Batches.Rec> compactFully(LogCleaner c, Map<String, ?> extra) throws Exception {
        Log log = open(extra);
        for (int round = 0; round < 3; round++) {
            for (int k = 0; k < 30; k++) {
                put(log, "k" + k, "v" + round + "-" + k);
            }
        }
        log.flush();
        // A pass with a small map may rewrite nothing yet still move on: run enough passes.
        for (int pass = 0; pass < 40; pass++) {
            c.clean(log, fx.clock.millis());
        }
        List<Batches.Rec> out = Batches.readAll(log, 0);
        fx.close();
        return out;
    }

    @Test
    void shouldCompactAsFarInSeveralPassesWithAKeyMapTooSmallForTheWholeLog() throws Exception {
        // 12 slots: 10 distinct keys per pass, a third of the log's 30 keys.
        List<Batches.Rec> small = compactFully(new LogCleaner(12 * OffsetMap.SLOT_BYTES), Map.of());
        root = tmp.resolve("big");
        List<Batches.Rec> big = compactFully(new LogCleaner(LogCleaner.DEFAULT_DEDUPE_BUFFER_BYTES), Map.of());
        assertThat(small).isEqualTo(big);
        assertThat(small.size()).isLessThan(90);
        // Every key of the cleaned range is left once, with its newest value.
        assertThat(small).extracting(Batches.Rec::value).contains("v2-0", "v2-29").doesNotContain("v0-0", "v1-0");
    }

    @Test
    void shouldNotCompactASegmentWithMoreDistinctKeysThanTheKeyMapHolds() throws Exception {
        Log log = open(Map.of());
        for (int round = 0; round < 2; round++) {
            for (int k = 0; k < 6; k++) {
                put(log, "k" + k, "v" + round);
            }
        }
        log.flush();
        List<Batches.Rec> before = Batches.readAll(log, 0);
        assertThat(new LogCleaner(3 * OffsetMap.SLOT_BYTES).clean(log, fx.clock.millis())).isZero();
        assertThat(Batches.readAll(log, 0)).isEqualTo(before);
    }

    @Test
    void shouldCompactALogWhoseOldestUncleanedRecordIsOlderThanMaxCompactionLagWhateverItsDirtyRatio()
            throws Exception {
        Log log = open(Map.of(LogConfig.MIN_CLEANABLE_DIRTY_RATIO, 0.9, LogConfig.MAX_COMPACTION_LAG_MS, 60_000));
        for (int i = 0; i < 40; i++) {
            put(log, "k" + (i % 4), "v" + i);
        }
        log.flush();
        assertThat(cleaner.clean(log, fx.clock.millis())).as("everything is dirty at first").isPositive();
        int segments = log.segmentCount();
        for (int i = 40; log.segmentCount() < segments + 2; i++) {
            put(log, "k" + (i % 4), "v" + i);
        }
        log.flush();
        assertThat(cleaner.clean(log, fx.clock.millis())).as("below min.cleanable.dirty.ratio").isZero();
        fx.clock.advance(60_000);
        assertThat(cleaner.clean(log, fx.clock.millis())).as("not older than the lag yet").isZero();

        fx.clock.advance(1);
        assertThat(cleaner.clean(log, fx.clock.millis())).isPositive();
        // Below the active segment, each key is left once, with its newest value.
        long activeBase = log.active().baseOffset;
        List<Batches.Rec> cleaned = Batches.readAll(log, 0).stream().filter(r -> r.offset() < activeBase).toList();
        assertThat(cleaned).extracting(Batches.Rec::key).doesNotHaveDuplicates();
    }

    @Test
    void shouldRollTheActiveSegmentOfACompactedLogOnceItIsMaxCompactionLagOld() throws Exception {
        Log log = open(Map.of(LogConfig.MAX_COMPACTION_LAG_MS, 60_000));
        put(log, "k", "v0");
        fx.clock.advance(60_000);
        put(log, "k", "v1");
        assertThat(log.segmentCount()).as("segment.ms is a week").isEqualTo(1);
        fx.clock.advance(1);
        put(log, "k", "v2");
        assertThat(log.segmentCount()).isEqualTo(2);
        log.flush();
        assertThat(cleaner.clean(log, fx.clock.millis())).isPositive();
        assertThat(Batches.readAll(log, 0)).extracting(Batches.Rec::value).containsExactly("v1", "v2");
    }

    @Test
    void shouldNotRollByMaxCompactionLagWithoutCompaction() throws Exception {
        Log log = open(Map.of(LogConfig.CLEANUP_POLICY, "delete", LogConfig.MAX_COMPACTION_LAG_MS, 60_000));
        put(log, "k", "v0");
        fx.clock.advance(60_001);
        put(log, "k", "v1");
        assertThat(log.segmentCount()).isEqualTo(1);
    }

    @Test
    void shouldNotLetAnAbortedRecordSupersedeACommittedOne() throws Exception {
        Log log = open(Map.of());
        put(log, "k0", "committed");
        log.append(Batches.producerBatch(7, (short) 0, 0, 1, fx.clock.millis(), true), 0); // k0=v0
        log.append(Batches.abortMarker(7, (short) 0, fx.clock.millis()), 0);
        putFillers(log, null);
        log.flush();
        assertThat(cleaner.clean(log, fx.clock.millis())).isPositive();
        List<Batches.Rec> after = Batches.readAll(log, 0);
        assertThat(after).contains(new Batches.Rec(0, fx.clock.millis(), "k0", "committed"));
        assertThat(after).noneMatch(r -> r.offset() == 1); // the aborted record is gone
        // its batch stays, emptied, so that the producer's state can still be rebuilt from the log
        assertThat(allBatches(log)).anyMatch(b -> b.baseOffset() == 1 && b.isTransactional()
                && b.producerId() == 7 && b.lastOffset() == 1 && !b.iterator().hasNext());
        log = fx.crashAndReopenAfter(() -> { }, 0);
        assertThat(Batches.readAll(log, 0)).isEqualTo(after);
    }

    @Test
    void shouldKnowATransactionIsAbortedWhenItsMarkerLiesAfterTheCleanedSegments() throws Exception {
        Log log = open(Map.of());
        put(log, "k0", "committed");
        log.append(Batches.producerBatch(7, (short) 0, 0, 3, fx.clock.millis(), true), 0); // k0..k2
        putFillers(log, null);
        // while the transaction is open nothing after its first offset may be cleaned
        assertThat(cleaner.clean(log, fx.clock.millis())).isZero();
        long marker = log.append(Batches.abortMarker(7, (short) 0, fx.clock.millis()), 0).lastOffset();
        log.flush();
        assertThat(log.segments.floorKey(marker)).isGreaterThan(1L); // not in the batch's segment
        assertThat(cleaner.clean(log, fx.clock.millis())).isPositive();
        List<Batches.Rec> after = Batches.readAll(log, 0);
        assertThat(after).contains(new Batches.Rec(0, fx.clock.millis(), "k0", "committed"));
        assertThat(after).noneMatch(r -> r.offset() >= 1 && r.offset() <= 3);
    }

    @Test
    void shouldLetACommittedTransactionalRecordSupersedeAnOlderOne() throws Exception {
        Log log = open(Map.of());
        put(log, "k0", "old");
        log.append(Batches.producerBatch(7, (short) 0, 0, 1, fx.clock.millis(), true), 0); // k0=v0
        log.append(Batches.commitMarker(7, (short) 0, fx.clock.millis()), 0);
        // an aborted transaction of the same producer afterwards touches another key only
        log.append(Batches.producerBatch(7, (short) 0, 1, 1, fx.clock.millis(), true), 0);
        log.append(Batches.abortMarker(7, (short) 0, fx.clock.millis()), 0);
        putFillers(log, null);
        log.flush();
        assertThat(cleaner.clean(log, fx.clock.millis())).isPositive();
        List<Batches.Rec> after = Batches.readAll(log, 0);
        assertThat(after).contains(new Batches.Rec(1, fx.clock.millis(), "k0", "v0"));
        assertThat(after).noneMatch(r -> r.offset() == 0 || r.offset() == 3);
    }

    private static List<org.apache.kafka.common.record.internal.MutableRecordBatch> allBatches(Log log)
            throws Exception {
        return Batches.allBatches(log);
    }

    @Test
    void shouldLeaveOnlyTheLastBatchOfAnIdempotentProducerOnceItsRecordsAreSuperseded() throws Exception {
        Log log = open(Map.of());
        int batches = 40;
        for (int seq = 0; seq < batches; seq++) { // one record each, all of key k0
            assertThat(log.append(Batches.idempotent(7, (short) 0, seq, 1, fx.clock.millis()), 0).error())
                    .isEqualTo(Errors.NONE);
        }
        log.flush();
        cleaner.clean(log, fx.clock.millis());
        cleaner.forget(log); // a second pass merges what the first one shrank
        cleaner.clean(log, fx.clock.millis());
        long activeBase = log.segments.lastKey();
        List<org.apache.kafka.common.record.internal.MutableRecordBatch> left = allBatches(log);
        // of the 40 batches, below the active segment: the newest record the pass saw, and empty
        // batches only where a rewritten file must end (one per closed segment at most)
        assertThat(left.stream().filter(b -> b.lastOffset() < activeBase && b.iterator().hasNext())).hasSize(1);
        assertThat(left.stream().filter(b -> b.lastOffset() < activeBase && !b.iterator().hasNext()))
                .hasSizeLessThanOrEqualTo(log.segmentCount() - 1);
        assertThat(Batches.readAll(log, 0)).last().isEqualTo(new Batches.Rec(batches - 1, fx.clock.millis(), "k0", "v0"));
        // the producer's state, rebuilt from the log alone, still knows where its sequence stands
        log = fx.crashAndReopenAfter(() -> { }, 0);
        assertThat(log.append(Batches.idempotent(7, (short) 0, batches - 1, 1, fx.clock.millis()), 0).error())
                .as("a retry of the last batch").isEqualTo(Errors.NONE);
        assertThat(log.append(Batches.idempotent(7, (short) 0, batches, 1, fx.clock.millis()), 0).error())
                .as("the next batch").isEqualTo(Errors.NONE);
    }

    @Test
    void shouldKeepTheLastBatchOfAProducerEvenWhenItsRecordsAreSuperseded() throws Exception {
        Log log = open(Map.of());
        log.append(Batches.idempotent(7, (short) 0, 0, 1, fx.clock.millis()), 0); // k0, offset 0
        putFillers(log, "k0"); // offset 1 supersedes it
        log.flush();
        assertThat(cleaner.clean(log, fx.clock.millis())).isPositive();
        assertThat(Batches.readAll(log, 0)).noneMatch(r -> r.offset() == 0);
        assertThat(allBatches(log)).anyMatch(b -> b.baseOffset() == 0 && b.producerId() == 7 && !b.iterator().hasNext());
        log = fx.crashAndReopenAfter(() -> { }, 0);
        assertThat(log.append(Batches.idempotent(7, (short) 0, 1, 1, fx.clock.millis()), 0).error())
                .isEqualTo(Errors.NONE);
    }

    @Test
    void shouldRemoveACommitMarkerOnceNothingOfItsTransactionIsLeft() throws Exception {
        Log log = open(Map.of());
        short epoch = 0;
        log.append(Batches.producerBatch(7, epoch, 0, 1, fx.clock.millis(), true), 0); // 0: k0
        long firstCommit = log.append(Batches.commitMarker(7, epoch, fx.clock.millis()), 0).lastOffset(); // 1
        log.append(Batches.producerBatch(8, epoch, 0, 1, fx.clock.millis(), true), 0); // 2: k0
        long abort = log.append(Batches.abortMarker(8, epoch, fx.clock.millis()), 0).lastOffset(); // 3
        log.append(Batches.producerBatch(7, epoch, 1, 1, fx.clock.millis(), true), 0); // 4: k0 again
        long lastCommit = log.append(Batches.commitMarker(7, epoch, fx.clock.millis()), 0).lastOffset(); // 5
        putFillers(log, null);
        log.flush();
        assertThat(cleaner.clean(log, fx.clock.millis())).isPositive();
        List<Long> markers = allBatches(log).stream().filter(b -> b.isControlBatch()).map(b -> b.baseOffset()).toList();
        // the first transaction's only record was superseded and its batch was not its producer's
        // last: nothing of it is left, nor its marker; the ABORT marker and the last COMMIT stay
        assertThat(markers).doesNotContain(firstCommit).contains(abort, lastCommit);
        assertThat(Batches.readAll(log, 0)).contains(new Batches.Rec(4, fx.clock.millis(), "k0", "v0"));
        // rebuilt from the log, the producers' transactions are all closed and 7 goes on
        log = fx.crashAndReopenAfter(() -> { }, 0);
        assertThat(log.lastStableOffset()).isEqualTo(log.highWatermark());
        assertThat(log.append(Batches.producerBatch(7, epoch, 2, 1, fx.clock.millis(), true), 0).error())
                .isEqualTo(Errors.NONE);
    }

    @Test
    void shouldKeepTheMarkerThatHoldsAProducersBumpedEpoch() throws Exception {
        Log log = open(Map.of());
        // a transactions-V2 commit: data at epoch 0, the marker at the epoch the coordinator bumped
        log.append(Batches.producerBatch(7, (short) 0, 0, 1, fx.clock.millis(), true), 0); // 0: k0
        long marker = log.append(Batches.commitMarker(7, (short) 1, fx.clock.millis()), 0).lastOffset();
        putFillers(log, "k0"); // supersedes the transaction's record
        log.flush();
        assertThat(cleaner.clean(log, fx.clock.millis())).isPositive();
        assertThat(allBatches(log)).noneMatch(b -> b.baseOffset() == 0)
                .anyMatch(b -> b.isControlBatch() && b.baseOffset() == marker);
        log = fx.crashAndReopenAfter(() -> { }, 0);
        assertThat(log.append(Batches.producerBatch(7, (short) 0, 1, 1, fx.clock.millis(), true), 0).error())
                .as("the old epoch is still fenced").isNotEqualTo(Errors.NONE);
    }

    @Test
    void shouldRemoveAnAbortMarkerAndItsIndexEntryDeleteRetentionAfterItsTransactionEmptied() throws Exception {
        // a high ratio: the pass at the horizon runs for the marker alone
        Log log = open(Map.of(LogConfig.MIN_CLEANABLE_DIRTY_RATIO, 0.5));
        short epoch = 0;
        log.append(Batches.producerBatch(8, epoch, 0, 1, fx.clock.millis(), true), 0); // 0: aborted
        long abort = log.append(Batches.abortMarker(8, epoch, fx.clock.millis()), 0).lastOffset(); // 1
        log.append(Batches.producerBatch(8, epoch, 1, 1, fx.clock.millis(), true), 0); // 2: its last data batch
        log.append(Batches.commitMarker(8, epoch, fx.clock.millis()), 0); // 3
        putFillers(log, null);
        log.flush();
        long t0 = fx.clock.millis();
        assertThat(cleaner.clean(log, t0)).isPositive();
        // the aborted record is gone; its marker stays, stamped with the horizon, and so does its entry
        assertThat(allBatches(log)).noneMatch(b -> b.baseOffset() == 0)
                .anyMatch(b -> b.isControlBatch() && b.baseOffset() == abort && b.isValid()
                        && b.deleteHorizonMs().equals(java.util.OptionalLong.of(t0 + 10_000))
                        && b.iterator().next().timestamp() == t0);
        assertThat(log.abortedTransactions(0, log.highWatermark())).containsExactly(new AbortedTransaction(8, 0, abort));
        assertThat(cleaner.clean(log, t0 + 9_999)).isZero();
        assertThat(allBatches(log)).anyMatch(b -> b.baseOffset() == abort);
        assertThat(cleaner.clean(log, t0 + 10_000)).isPositive();
        assertThat(allBatches(log)).noneMatch(b -> b.baseOffset() == abort)
                .anyMatch(b -> b.baseOffset() == 2 && b.iterator().hasNext());
        assertThat(log.abortedTransactions(0, log.highWatermark())).isEmpty();
        // rebuilt from the files: no entry comes back, every transaction is closed, 8 goes on
        log = fx.crashAndReopenAfter(() -> { }, 0);
        assertThat(log.abortedTransactions(0, log.highWatermark())).isEmpty();
        assertThat(log.lastStableOffset()).isEqualTo(log.highWatermark());
        assertThat(log.append(Batches.producerBatch(8, epoch, 2, 1, fx.clock.millis(), true), 0).error())
                .isEqualTo(Errors.NONE);
    }

    @Test
    void shouldKeepAnAbortMarkerWhileABatchOfItsTransactionStays() throws Exception {
        Log log = open(Map.of());
        log.append(Batches.producerBatch(9, (short) 0, 0, 1, fx.clock.millis(), true), 0); // 0: its last data batch
        long abort = log.append(Batches.abortMarker(9, (short) 0, fx.clock.millis()), 0).lastOffset();
        putFillers(log, null);
        log.flush();
        cleaner.clean(log, fx.clock.millis());
        cleaner.clean(log, fx.clock.millis() + 60_000);
        assertThat(allBatches(log)).anyMatch(b -> b.baseOffset() == 0 && !b.iterator().hasNext())
                .anyMatch(b -> b.baseOffset() == abort && b.deleteHorizonMs().isEmpty());
        assertThat(log.abortedTransactions(0, log.highWatermark())).containsExactly(new AbortedTransaction(9, 0, abort));
        log = fx.crashAndReopenAfter(() -> { }, 0);
        assertThat(log.lastStableOffset()).isEqualTo(log.highWatermark());
    }

    @Test
    void shouldNotRemoveAnAbortMarkerPastItsHorizonWhileItsRecordsAreStillInTheLog() throws Exception {
        Log log = open(Map.of());
        long t0 = fx.clock.millis();
        log.append(Batches.producerBatch(8, (short) 0, 0, 1, t0, true), 0); // 0: aborted, not emptied yet
        // a marker stamped by an earlier pass whose rewrite of the data was not swapped in
        long abort = log.append(new io.brook.wire.record.RecordBatchBuilder(io.brook.wire.record.Compression.NONE)
                .producer(8, (short) 0, -1).transactional(true).control(true).deleteHorizonMs(t0 - 1)
                .appendEndTransactionMarker(t0, io.brook.wire.record.ControlRecordType.ABORT, 0).build(), 0)
                .lastOffset();
        log.append(Batches.producerBatch(8, (short) 0, 1, 1, t0, false), 0); // its last data batch
        putFillers(log, null);
        log.flush();
        assertThat(cleaner.clean(log, t0)).isPositive();
        // the records go in this pass; the marker and its entry only in the next
        assertThat(allBatches(log)).noneMatch(b -> b.baseOffset() == 0).anyMatch(b -> b.baseOffset() == abort);
        assertThat(log.abortedTransactions(0, log.highWatermark())).containsExactly(new AbortedTransaction(8, 0, abort));
        cleaner.clean(log, t0);
        assertThat(allBatches(log)).noneMatch(b -> b.baseOffset() == abort);
        assertThat(log.abortedTransactions(0, log.highWatermark())).isEmpty();
    }
}
