package io.brook.storage;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Compaction properties over seeded random histories of keyed writes and tombstones: the newest
 * record of every key survives at its original offset; a read from any offset returns an ordered
 * subsequence of the original log; a tombstone disappears only after delete.retention.ms. With
 * transactions among the writes, committed or aborted: the newest committed record of every key
 * survives (an aborted record never takes its place), no aborted record outlives a pass that
 * cleaned its segment, a read_committed reader (filtering as kafka-clients does with the aborted
 * transactions the log reports) sees every other record left, and ABORT markers go once past
 * their delete horizon.
 */
class CompactionPropertiesTest {
    private static final long DELETE_RETENTION = 10_000;

    @TempDir
    Path tmp;

    private record Written(Batches.Rec rec, long appendedAt) {
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {101, 102, 103, 104, 105, 106})
    void compactionPreservesNewestPerKeyOrderAndTombstoneRetention(long seed) throws Exception {
        Random rnd = new Random(seed);
        LogFixture fx = new LogFixture(tmp, Map.of(LogConfig.CLEANUP_POLICY, "compact,delete",
                LogConfig.RETENTION_MS, -1, LogConfig.SEGMENT_BYTES, 1000 + rnd.nextInt(2000),
                LogConfig.MIN_CLEANABLE_DIRTY_RATIO, rnd.nextDouble() * 0.5,
                LogConfig.DELETE_RETENTION_MS, DELETE_RETENTION));
        LogCleaner cleaner = new LogCleaner();
        List<Written> original = new ArrayList<>();
        try (fx) {
            Log log = fx.open();
            for (int round = 0; round < 25; round++) {
                int writes = 1 + rnd.nextInt(15);
                for (int i = 0; i < writes; i++) {
                    int n = 1 + rnd.nextInt(3);
                    String[] keys = new String[n];
                    String[] values = new String[n];
                    for (int j = 0; j < n; j++) {
                        keys[j] = "key-" + rnd.nextInt(12);
                        values[j] = rnd.nextInt(6) == 0 ? null : "value-" + round + "-" + i + "-" + j;
                    }
                    long ts = fx.clock.millis();
                    AppendResult r = log.append(Batches.keyed(ts, keys, values), 0);
                    for (int j = 0; j < n; j++) {
                        original.add(new Written(new Batches.Rec(r.baseOffset() + j, ts, keys[j], values[j]), ts));
                    }
                }
                log.flush();
                fx.clock.advance(rnd.nextInt(4000));
                cleaner.clean(log, fx.clock.millis());
                check(log, original, fx.clock.millis());
                if (rnd.nextInt(8) == 0) {
                    log = fx.reopen();
                    cleaner.forget(log);
                }
            }
            assertThat(Batches.readAll(log, 0).size()).as("compaction removed something").isLessThan(original.size());
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {201, 202, 203, 204, 205, 206})
    void compactionKeepsTheNewestCommittedRecordOfEveryKeyAmongTransactions(long seed) throws Exception {
        Random rnd = new Random(seed);
        LogFixture fx = new LogFixture(tmp, Map.of(LogConfig.CLEANUP_POLICY, "compact",
                LogConfig.SEGMENT_BYTES, 800 + rnd.nextInt(1500),
                LogConfig.MIN_CLEANABLE_DIRTY_RATIO, rnd.nextDouble() * 0.5,
                LogConfig.DELETE_RETENTION_MS, DELETE_RETENTION));
        LogCleaner cleaner = new LogCleaner();
        List<Written> committed = new ArrayList<>();
        List<Batches.Rec> aborted = new ArrayList<>();
        int[] sequences = new int[3]; // per producer id 1..3, epoch 0
        int abortsWritten = 0;
        try (fx) {
            Log log = fx.open();
            for (int round = 0; round < 25; round++) {
                int writes = 1 + rnd.nextInt(10);
                for (int i = 0; i < writes; i++) {
                    long ts = fx.clock.millis();
                    if (rnd.nextBoolean()) {
                        String[] keys = {"key-" + rnd.nextInt(10)};
                        String[] values = {"plain-" + round + "-" + i};
                        AppendResult r = log.append(Batches.keyed(ts, keys, values), 0);
                        committed.add(new Written(new Batches.Rec(r.baseOffset(), ts, keys[0], values[0]), ts));
                        continue;
                    }
                    // one transaction of a producer: one to three batches, then its marker
                    int producer = rnd.nextInt(3);
                    boolean commit = rnd.nextBoolean();
                    List<Batches.Rec> txn = new ArrayList<>();
                    for (int b = 1 + rnd.nextInt(3); b > 0; b--) {
                        int n = 1 + rnd.nextInt(3);
                        String[] keys = new String[n];
                        String[] values = new String[n];
                        for (int j = 0; j < n; j++) {
                            keys[j] = "key-" + rnd.nextInt(10);
                            values[j] = (commit ? "committed-" : "aborted-") + round + "-" + i + "-" + b + "-" + j;
                        }
                        AppendResult r = log.append(Batches.transactional(producer + 1, (short) 0,
                                sequences[producer], ts, keys, values), 0);
                        assertThat(r.error()).isEqualTo(io.brook.wire.protocol.Errors.NONE);
                        sequences[producer] += n;
                        for (int j = 0; j < n; j++) {
                            txn.add(new Batches.Rec(r.baseOffset() + j, ts, keys[j], values[j]));
                        }
                    }
                    log.append(commit ? Batches.commitMarker(producer + 1, (short) 0, ts)
                            : Batches.abortMarker(producer + 1, (short) 0, ts), 0);
                    abortsWritten += commit ? 0 : 1;
                    if (commit) {
                        txn.forEach(rec -> committed.add(new Written(rec, ts)));
                    } else {
                        aborted.addAll(txn);
                    }
                }
                log.flush();
                fx.clock.advance(rnd.nextInt(4000));
                cleaner.clean(log, fx.clock.millis());
                List<Batches.Rec> actual = Batches.readAll(log, 0);
                Map<String, Batches.Rec> newest = new HashMap<>();
                committed.forEach(w -> newest.merge(w.rec().key(), w.rec(),
                        (a, b) -> a.offset() > b.offset() ? a : b));
                for (Batches.Rec rec : newest.values()) {
                    assertThat(actual).as("newest committed record of %s", rec.key()).contains(rec);
                }
                // aborted records remain only where no pass has cleaned yet: in the active segment
                // or after the range cleaned last
                long activeBase = log.segments.lastKey();
                for (Batches.Rec rec : actual) {
                    if (aborted.contains(rec) && rec.offset() < activeBase) {
                        assertThat(rec.offset()).as("aborted %s outlived a pass", rec)
                                .isGreaterThanOrEqualTo(cleaner.cleanedUpTo(log));
                    }
                }
                // a read_committed consumer sees every record left but the aborted ones: no
                // aborted-transaction entry outlives its marker
                assertThat(Batches.readCommitted(log))
                        .isEqualTo(actual.stream().filter(rec -> !aborted.contains(rec)).toList());
                if (rnd.nextInt(8) == 0) {
                    log = fx.reopen();
                    cleaner.forget(log);
                    // every transaction ended before the reopen, markers removed or not
                    assertThat(log.lastStableOffset()).isEqualTo(log.highWatermark());
                }
            }
            long abortMarkersLeft = Batches.allBatches(log).stream().filter(b -> b.isControlBatch()
                    && org.apache.kafka.common.record.internal.ControlRecordType.parse(b.iterator().next().key())
                            == org.apache.kafka.common.record.internal.ControlRecordType.ABORT).count();
            assertThat(abortMarkersLeft).as("ABORT markers removed once past their horizon").isLessThan(abortsWritten);
        }
    }

    private static void check(Log log, List<Written> original, long now) throws Exception {
        List<Batches.Rec> all = original.stream().map(Written::rec).toList();
        List<Batches.Rec> actual = Batches.readAll(log, 0);
        // Ordered subsequence of the original log.
        assertThat(all).containsAll(actual);
        for (int i = 1; i < actual.size(); i++) {
            assertThat(actual.get(i).offset()).isGreaterThan(actual.get(i - 1).offset());
        }
        // Newest record per key: survives if it has a value, or if it is a tombstone still within retention.
        Map<String, Written> newest = new HashMap<>();
        original.forEach(w -> newest.put(w.rec().key(), w));
        for (Written w : newest.values()) {
            if (w.rec().value() != null || now < w.appendedAt() + DELETE_RETENTION) {
                assertThat(actual).as("newest of %s", w.rec().key()).contains(w.rec());
            }
        }
        // Any read start gives a suffix of the same sequence.
        for (int k = 0; k < 5 && !actual.isEmpty(); k++) {
            long from = actual.get(Math.floorMod((int) (now + k * 7919), actual.size())).offset();
            List<Batches.Rec> suffix = Batches.readAll(log, from);
            assertThat(suffix).isEqualTo(actual.stream().filter(r -> r.offset() >= from).toList());
        }
    }
}
