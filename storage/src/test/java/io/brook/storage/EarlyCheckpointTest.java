package io.brook.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.MutableClock;
import org.apache.kafka.common.compress.Compression;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The recovery-point checkpoint is written before its interval once enough became durable, so an
 * unclean start's scan is bounded by bytes rather than by a minute of writes.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class EarlyCheckpointTest {
    @TempDir
    Path tmp;

    @Test
    void checkpointsOnceTheThresholdBecameDurable() throws Exception {
        try (LogManager m = LogManager.open(new LogManagerOptions(tmp).clock(new MutableClock(1_700_000_000_000L))
                .backgroundThreads(false).earlyCheckpointBytes(20_000))) {
            Log log = m.getOrCreateLog("t", 0, LogConfig.defaults());
            m.checkpointRecoveryPoints();
            Path checkpoint = tmp.resolve(LogManager.RECOVERY_POINT_FILE);
            assertThat(lines(checkpoint)).contains("t 0 0");

            appendDurably(log, 5); // 5 × ~2 KB: below the threshold
            m.scheduledCheckpoint(true);
            assertThat(lines(checkpoint)).contains("t 0 0");

            appendDurably(log, 10); // past 20,000 bytes since the last checkpoint
            m.scheduledCheckpoint(true);
            assertThat(lines(checkpoint)).contains("t 0 " + log.durableOffset()).doesNotContain("t 0 0");

            long written = log.durableOffset();
            appendDurably(log, 1); // counted from the new checkpoint, not from the start
            m.scheduledCheckpoint(true);
            assertThat(lines(checkpoint)).contains("t 0 " + written);
        }
    }

    @Test
    void aDurablePointInALaterSegmentIsDue() throws Exception {
        try (LogManager m = LogManager.open(new LogManagerOptions(tmp).clock(new MutableClock(1_700_000_000_000L))
                .backgroundThreads(false).earlyCheckpointBytes(1L << 30))) {
            Log log = m.getOrCreateLog("t", 0, LogConfig.defaults());
            appendDurably(log, 1);
            m.checkpointRecoveryPoints();
            log.appendLock.lock();
            try {
                log.roll(log.logEndOffset(), 0);
            } finally {
                log.appendLock.unlock();
            }
            appendDurably(log, 1);
            m.scheduledCheckpoint(true);
            assertThat(lines(tmp.resolve(LogManager.RECOVERY_POINT_FILE))).contains("t 0 2");
        }
    }

    @Test
    void theNextUncleanStartScansFromTheActiveSegmentsIndexNotItsStart() throws Exception {
        LogManagerOptions options = new LogManagerOptions(tmp).clock(new MutableClock(1_700_000_000_000L))
                .backgroundThreads(false).earlyCheckpointBytes(20_000)
                .defaults(LogConfig.defaults().with(Map.of(LogConfig.INDEX_INTERVAL_BYTES, 100)));
        LogManager m = LogManager.open(options);
        Log log = m.getOrCreateLog("t", 0, LogConfig.defaults().with(Map.of(LogConfig.INDEX_INTERVAL_BYTES, 100)));
        appendDurably(log, 15);
        m.scheduledCheckpoint(true); // the checkpoint and the active segment's index files
        long recoveryPoint = log.durableOffset();
        appendDurably(log, 2);
        long size = log.active().size();
        m.crash();

        try (LogManager again = LogManager.open(options)) {
            Log reopened = again.getLog("t", 0);
            assertThat(reopened.logEndOffset()).isEqualTo(17L);
            // without the index files the scan starts at 0 ("missing") and covers the whole segment
            assertThat(reopened.active().recoveryScanStart).isPositive();
            assertThat(reopened.active().recoveryBytesScanned).isLessThan(size / 2);
            assertThat(recoveryPoint).isEqualTo(15L);
        }
    }

    @Test
    void aCheckpointForcesTheActiveSegmentsIndexFilesSoThatAPowerCutKeepsThem() throws Exception {
        Path dir = tmp.resolve("t-0");
        try (DiskFaults disk = DiskFaults.install(dir);
                LogManager m = LogManager.open(new LogManagerOptions(tmp).clock(new MutableClock(1_700_000_000_000L))
                .backgroundThreads(false).earlyCheckpointBytes(20_000))) {
            Log log = m.getOrCreateLog("t", 0, LogConfig.defaults().with(Map.of(LogConfig.INDEX_INTERVAL_BYTES, 100)));
            appendDurably(log, 15);
            disk.forgetForces();

            m.scheduledCheckpoint(true);

            assertThat(disk.forced()).contains("00000000000000000000.index", "00000000000000000000.timeindex");
            assertThat(Files.size(dir.resolve("00000000000000000000.index"))).isPositive();
        }
    }

    private static void appendDurably(Log log, int batches) throws Exception {
        for (int i = 0; i < batches; i++) {
            AppendResult r = log.append(Batches.batch(Compression.NONE, 1000, 1, "k", 2000), 0);
            log.whenDurable(r.lastOffset() + 1).get(10, TimeUnit.SECONDS);
        }
    }

    private static List<String> lines(Path f) throws Exception {
        return Files.readAllLines(f, StandardCharsets.UTF_8);
    }
}
