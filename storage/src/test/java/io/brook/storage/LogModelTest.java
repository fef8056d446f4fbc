package io.brook.storage;

import io.brook.wire.protocol.Errors;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random operations against a model (a list of records), seeded and reproducible: appends of
 * random batches (codecs, sizes, timestamps), flushes, rolls, reads at random offsets and byte
 * limits, timestamp lookups, truncation, DeleteRecords, retention, compaction, clean and unclean
 * restarts (with torn tails beyond the durable point). After every step the log must match.
 */
class LogModelTest {
    @TempDir
    Path tmp;

    private static final Compression[] CODECS = {Compression.NONE, Compression.NONE, Compression.gzip().build(),
            Compression.snappy().build(), Compression.lz4().build(), Compression.zstd().build()};

    /** Model state. */
    private final List<Batches.Rec> model = new ArrayList<>();
    private long modelStart;
    private LogFixture fx;
    private Log log;
    private Random rnd;
    private long flushedActiveBase = -1;
    private int flushedActivePos;

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6})
    void deletePolicyLogMatchesModel(long seed) throws Exception {
        run(seed, false);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {11, 12, 13, 14})
    void compactedLogKeepsNewestPerKeyInOrder(long seed) throws Exception {
        run(seed, true);
    }

    private void run(long seed, boolean compact) throws Exception {
        rnd = new Random(seed);
        Map<String, Object> settings = new HashMap<>();
        settings.put(LogConfig.SEGMENT_BYTES, 600 + rnd.nextInt(2000));
        settings.put(LogConfig.INDEX_INTERVAL_BYTES, rnd.nextInt(400));
        settings.put(LogConfig.RETENTION_MS, 50_000);
        settings.put(LogConfig.RETENTION_BYTES, compact ? -1 : 6000 + rnd.nextInt(6000));
        if (compact) {
            settings.put(LogConfig.CLEANUP_POLICY, "compact");
            settings.put(LogConfig.MIN_CLEANABLE_DIRTY_RATIO, 0.0);
            settings.put(LogConfig.DELETE_RETENTION_MS, 5_000);
        }
        fx = new LogFixture(tmp.resolve("s" + seed), settings);
        LogCleaner cleaner = new LogCleaner();
        try {
            log = fx.open();
            for (int step = 0; step < 250; step++) {
                int op = rnd.nextInt(100);
                if (op < 45) {
                    append(compact);
                } else if (op < 60) {
                    flush();
                } else if (op < 68) {
                    checkRandomRead();
                } else if (op < 74) {
                    checkTimestampLookup();
                } else if (op < 77 && !compact) {
                    truncate();
                } else if (op < 80) {
                    deleteRecords();
                } else if (op < 85) {
                    fx.clock.advance(rnd.nextInt(20_000));
                    if (compact) {
                        cleaner.forget(log);
                        cleaner.clean(log, fx.clock.millis());
                    } else {
                        log.deleteExpiredSegments(fx.clock.millis());
                        modelStart = log.logStartOffset();
                    }
                } else if (op < 90) {
                    log = fx.reopen();
                    flushedActiveBase = -1;
                } else if (op < 95) {
                    crash();
                }
                verify(compact);
            }
        } finally {
            fx.close();
        }
    }

    private void append(boolean compact) {
        int count = 1 + rnd.nextInt(6);
        long ts = fx.clock.millis() + rnd.nextInt(2000) - 1000;
        ByteBuffer batch;
        String[] keys = new String[count];
        String[] values = new String[count];
        for (int i = 0; i < count; i++) {
            keys[i] = "k" + rnd.nextInt(compact ? 8 : 1000);
            values[i] = compact && rnd.nextInt(10) == 0 ? null : "v" + rnd.nextInt(1_000_000) + "-" + "x".repeat(rnd.nextInt(60));
        }
        if (!compact && rnd.nextBoolean()) {
            batch = Batches.batch(CODECS[rnd.nextInt(CODECS.length)], ts, count, "k", rnd.nextInt(100));
        } else {
            batch = Batches.keyed(ts, keys, values);
        }
        List<Batches.Rec> sent = Batches.records(batch.duplicate());
        AppendResult r = log.append(batch, 0);
        assertThat(r.error()).isEqualTo(Errors.NONE);
        assertThat(r.baseOffset()).isEqualTo(nextOffset());
        for (Batches.Rec rec : sent) {
            model.add(new Batches.Rec(r.baseOffset() + rec.offset(), rec.timestamp(), rec.key(), rec.value()));
        }
        if (rnd.nextInt(4) == 0) {
            fx.clock.advance(rnd.nextInt(3000));
        }
    }

    private long nextOffset() {
        return model.isEmpty() ? Math.max(modelStart, 0) : Math.max(modelStart, model.get(model.size() - 1).offset() + 1);
    }

    private void flush() {
        log.flush();
        flushedActiveBase = log.active().baseOffset;
        flushedActivePos = log.active().size();
    }

    private void truncate() throws IOException {
        long leo = log.logEndOffset();
        long target = modelStart + (long) (rnd.nextDouble() * (leo - modelStart + 1));
        log.truncateTo(target);
        long newEnd = log.logEndOffset();
        assertThat(newEnd).isLessThanOrEqualTo(Math.max(target, modelStart));
        model.removeIf(r -> r.offset() >= newEnd);
        if (newEnd < modelStart) {
            // The batch holding the log start was cut whole: the log start follows the end down.
            modelStart = newEnd;
        }
        assertThat(nextOffset()).isEqualTo(newEnd);
        flushedActiveBase = -1;
    }

    private void deleteRecords() {
        long hw = log.highWatermark();
        if (hw <= modelStart) {
            return;
        }
        long target = modelStart + (long) (rnd.nextDouble() * (hw - modelStart));
        assertThat(log.deleteRecordsBefore(target)).isEqualTo(Errors.NONE);
        modelStart = Math.max(modelStart, target);
        assertThat(log.logStartOffset()).isEqualTo(modelStart);
    }

    private void crash() throws IOException {
        long durable = log.durableOffset();
        long oldEnd = log.logEndOffset();
        long activeBase = log.active().baseOffset;
        int size = log.active().size();
        int cutFrom = activeBase >= durable ? 0 : (flushedActiveBase == activeBase ? flushedActivePos : size);
        Path activeFile = log.active().logFile();
        boolean cut = rnd.nextBoolean() && cutFrom < size;
        int cutAt = cut ? cutFrom + rnd.nextInt(size - cutFrom) : size;
        log = fx.crashAndReopenAfter(() -> {
            if (cut) {
                try (FileChannel ch = FileChannel.open(activeFile, StandardOpenOption.WRITE)) {
                    ch.truncate(cutAt);
                }
            }
        }, rnd.nextBoolean() ? durable : 0);
        long end = log.logEndOffset();
        assertThat(end).isBetween(Math.min(durable, oldEnd), oldEnd);
        model.removeIf(r -> r.offset() >= end);
        if (end < modelStart) {
            modelStart = end;
        }
        assertThat(nextOffset()).isLessThanOrEqualTo(Math.max(end, modelStart));
        flushedActiveBase = -1;
        // A torn batch may leave a gap between the model's last record and the log end: none here,
        // since whole batches vanish and the model only holds whole batches.
        if (!model.isEmpty()) {
            assertThat(model.get(model.size() - 1).offset()).isLessThan(end);
        }
        modelStart = log.logStartOffset();
    }

    private void verify(boolean compact) throws IOException {
        assertThat(log.corruption()).isNull();
        assertThat(log.logStartOffset()).isEqualTo(modelStart);
        assertThat(log.logEndOffset()).isEqualTo(nextOffset());
        long hw = log.highWatermark();
        assertThat(hw).isBetween(log.logStartOffset(), log.logEndOffset());
        List<Batches.Rec> actual = Batches.readAll(log, modelStart);
        List<Batches.Rec> expected = model.stream().filter(r -> r.offset() >= modelStart && r.offset() < hw).toList();
        if (!compact) {
            assertThat(actual).isEqualTo(expected);
            return;
        }
        // Compaction: an ordered subsequence that keeps the newest record of every key.
        assertThat(expected).containsAll(actual);
        for (int i = 1; i < actual.size(); i++) {
            assertThat(actual.get(i).offset()).isGreaterThan(actual.get(i - 1).offset());
        }
        Map<String, Batches.Rec> newest = new HashMap<>();
        expected.forEach(r -> newest.put(r.key(), r));
        for (Batches.Rec r : newest.values()) {
            if (r.value() != null) {
                assertThat(actual).contains(r);
            }
        }
    }

    private void checkRandomRead() throws IOException {
        long hw = log.highWatermark();
        if (hw <= modelStart) {
            assertThat(log.read(hw, 100, true).records()).isNull();
            return;
        }
        long offset = modelStart + (long) (rnd.nextDouble() * (hw - modelStart));
        int maxBytes = 1 + rnd.nextInt(3000);
        LogReadResult r = log.read(offset, maxBytes, true);
        assertThat(r.error()).isEqualTo(Errors.NONE);
        if (r.records() == null) {
            // Only possible when no record at or after the offset is left below the high watermark.
            assertThat(Batches.readAll(log, offset)).isEmpty();
            return;
        }
        List<MutableRecordBatch> batches = Batches.batches(r.records());
        assertThat(batches).isNotEmpty();
        assertThat(batches.get(0).lastOffset()).isGreaterThanOrEqualTo(offset);
        assertThat(r.sizeInBytes()).isLessThanOrEqualTo(Math.max(maxBytes, batches.get(0).sizeInBytes()));
        for (MutableRecordBatch b : batches) {
            assertThat(b.lastOffset()).isLessThan(hw);
        }
    }

    private void checkTimestampLookup() throws IOException {
        List<Batches.Rec> visible = Batches.readAll(log, modelStart);
        long t = fx.clock.millis() + rnd.nextInt(4000) - 3000;
        TimestampOffset found = log.offsetForTimestamp(t, false);
        Batches.Rec expected = visible.stream().filter(r -> r.timestamp() >= t).findFirst().orElse(null);
        if (expected == null) {
            assertThat(found).isNull();
        } else {
            assertThat(found.offset()).isEqualTo(expected.offset());
            assertThat(found.timestamp()).isEqualTo(expected.timestamp());
        }
        TimestampOffset max = log.offsetForTimestamp(Log.MAX_TIMESTAMP, false);
        if (visible.isEmpty()) {
            assertThat(max.offset()).isEqualTo(-1);
        } else {
            long maxTs = visible.stream().mapToLong(Batches.Rec::timestamp).max().orElseThrow();
            assertThat(max.timestamp()).isEqualTo(maxTs);
            assertThat(max.offset()).isEqualTo(visible.stream().filter(r -> r.timestamp() == maxTs).findFirst()
                    .orElseThrow().offset());
        }
    }
}
