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
 * subsequence of the original log; a tombstone disappears only after delete.retention.ms.
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
