package io.brook.coordinator.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.coordinator.runtime.CoordinatorLogException.Reason;
import io.brook.storage.LogConfig;
import io.brook.storage.LogManager;
import io.brook.storage.LogManagerOptions;
import io.brook.storage.LogReadResult;
import io.brook.wire.record.Compression;
import io.brook.wire.record.RecordBatch;
import io.brook.wire.record.RecordBatches;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A coordinator log that compresses its batches of records (Kafka's
 * {@code offsets.topic.compression.codec}): the batches are stored compressed, markers are not,
 * everything replays after a restart, and a batch whose records exceed what a reader decodes a
 * batch within is written uncompressed instead.
 */
@Timeout(60)
class CompressedCoordinatorLogTest {
    private static final String TOPIC = "__test_state";

    @TempDir
    Path dir;

    private LogManager openLogs() throws Exception {
        return LogManager.open(new LogManagerOptions(dir).backgroundThreads(false));
    }

    private static CoordinatorRecord record(String key, String value) {
        return new CoordinatorRecord(0, key.getBytes(), value.getBytes());
    }

    /** The codec of each batch stored in partition 0, in order. */
    private static List<Compression> codecs(LogManager logs) throws Exception {
        LogReadResult read = logs.getLog(TOPIC, 0).read(0, Integer.MAX_VALUE, true);
        ByteBuffer bytes = read.records().readAll();
        RecordBatches walker = new RecordBatches();
        walker.wrap(bytes);
        List<Compression> out = new ArrayList<>();
        RecordBatch batch;
        while ((batch = walker.next()) != null) {
            out.add(batch.compression());
        }
        return out;
    }

    @Test
    void shouldStoreCompressedBatchesAndReplayThemAfterARestart() throws Exception {
        try (LogManager logs = openLogs()) {
            StorageCoordinatorLog log = StorageLogs.compacted(logs, TOPIC, 1, LogConfig.defaults(), Clock.systemUTC(),
                    Compression.ZSTD);
            log.append(0, List.of(record("a", "1".repeat(500)), record("b", "2".repeat(500)))).get(10, TimeUnit.SECONDS);
            log.append(0, List.of(CoordinatorRecord.transactional(0, 7L, (short) 1, "t".getBytes(), "3".getBytes())))
                    .get(10, TimeUnit.SECONDS);
            log.append(0, List.of(CoordinatorRecord.marker(0, 7L, (short) 1, true))).get(10, TimeUnit.SECONDS);
            assertThat(codecs(logs)).containsExactly(Compression.ZSTD, Compression.ZSTD, Compression.NONE);
        }
        try (LogManager logs = openLogs()) {
            List<String> seen = new ArrayList<>();
            StorageCoordinatorLog log = StorageLogs.compacted(logs, TOPIC, 1, Clock.systemUTC());
            log.replay(0, 1024, r -> seen.add(r.isMarker() ? "marker " + r.producerId()
                    : new String(r.key()) + "=" + new String(r.value()).length() + (r.isTransactional() ? " txn" : "")));
            assertThat(seen).containsExactly("a=500", "b=500", "t=1 txn", "marker 7");
        }
    }

    @Test
    void shouldWriteRecordsBeyondTheDecompressionBoundUncompressed() throws Exception {
        try (LogManager logs = openLogs()) {
            // 8 MiB: the bound's worth of zeros would fit compressed, but not uncompressed
            StorageCoordinatorLog log = StorageLogs.compacted(logs, TOPIC, 1,
                    LogConfig.defaults().with(Map.of(LogConfig.MAX_MESSAGE_BYTES, Integer.toString(8 << 20))),
                    Clock.systemUTC(), Compression.ZSTD);
            byte[] mib = new byte[1 << 20];
            List<CoordinatorRecord> records = new ArrayList<>();
            for (int i = 0; i <= RecordBatch.DEFAULT_MAX_DECOMPRESSED_BYTES >> 20; i++) {
                records.add(new CoordinatorRecord(0, ("k" + i).getBytes(), mib));
            }
            assertThatThrownBy(() -> log.append(0, records).get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOfSatisfying(CoordinatorLogException.class,
                            e -> assertThat(e.reason()).isEqualTo(Reason.RECORDS_TOO_LARGE));

            log.append(0, records.subList(0, 4)).get(30, TimeUnit.SECONDS);
            assertThat(codecs(logs)).containsExactly(Compression.ZSTD);
        }
    }
}
