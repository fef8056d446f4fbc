package io.brook.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.MutableClock;
import org.apache.kafka.common.compress.Compression;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
        try (LogManager m = LogManager.open(new LogManager.Options(tmp).clock(new MutableClock(1_700_000_000_000L))
                .backgroundThreads(false).earlyCheckpointBytes(20_000))) {
            Log log = m.getOrCreateLog("t", 0, LogConfig.defaults());
            m.checkpointRecoveryPoints();
            Path checkpoint = tmp.resolve(LogManager.RECOVERY_POINT_FILE);
            assertThat(lines(checkpoint)).contains("t 0 0");

            appendDurably(log, 5); // 5 × ~2 KB: below the threshold
            m.checkpointIfMuchBecameDurable();
            assertThat(lines(checkpoint)).contains("t 0 0");

            appendDurably(log, 10); // past 20,000 bytes since the last checkpoint
            m.checkpointIfMuchBecameDurable();
            assertThat(lines(checkpoint)).contains("t 0 " + log.durableOffset()).doesNotContain("t 0 0");

            long written = log.durableOffset();
            appendDurably(log, 1); // counted from the new checkpoint, not from the start
            m.checkpointIfMuchBecameDurable();
            assertThat(lines(checkpoint)).contains("t 0 " + written);
        }
    }

    @Test
    void aDurablePointInALaterSegmentIsDue() throws Exception {
        try (LogManager m = LogManager.open(new LogManager.Options(tmp).clock(new MutableClock(1_700_000_000_000L))
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
            m.checkpointIfMuchBecameDurable();
            assertThat(lines(tmp.resolve(LogManager.RECOVERY_POINT_FILE))).contains("t 0 2");
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
