package io.brook.storage;

import io.brook.testkit.Await;
import io.brook.wire.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** Deleting segments (retention, truncation, compaction, log deletion) while the flusher forces them. */
@org.junit.jupiter.api.Timeout(60)
class FlushRaceTest {
    @TempDir
    Path tmp;
    LogFixture fx;

    @AfterEach
    void tearDown() throws Exception {
        fx.close();
    }

    private static List<String> files(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void shouldSkipSegmentsThatRetentionDeletesWhileTheyAreBeingFlushed() throws Exception {
        fx = new LogFixture(tmp, Map.of(LogConfig.SEGMENT_BYTES, 300, LogConfig.RETENTION_MS, 0,
                LogConfig.FLUSH_ON_ACK, false));
        Log log = fx.open();
        for (int i = 0; i < 10; i++) {
            log.append(Batches.batch(0, 2, "k"), 0);
        }
        assertThat(log.segmentCount()).isGreaterThan(2);
        int[] deleted = {0};
        log.durability.beforeSegmentFlush = s -> {
            if (deleted[0] == 0) {
                // Retention (file.delete.delay.ms=0: files go at once) after the flusher picked s.
                deleted[0] = log.deleteExpiredSegments(fx.clock.millis());
            }
        };
        log.flush();
        log.durability.beforeSegmentFlush = null;

        assertThat(deleted[0]).isPositive();
        AppendResult r = log.append(Batches.batch(0, 2, "k"), 0);
        assertThat(r.error()).isEqualTo(Errors.NONE);
        log.flush();
        assertThat(log.read(r.baseOffset(), 1 << 20, true).error()).isEqualTo(Errors.NONE);
        // No index file of a deleted segment was written back.
        long active = log.active().baseOffset;
        assertThat(files(fx.dir)).filteredOn(n -> n.endsWith(".index") || n.endsWith(".timeindex"))
                .allMatch(n -> n.startsWith(LogSegment.name(active)));
    }

    @Test
    void shouldSkipSegmentsThatACompactionSwapReplacesWhileTheyAreBeingFlushed() throws Exception {
        fx = new LogFixture(tmp, Map.of(LogConfig.CLEANUP_POLICY, "compact", LogConfig.SEGMENT_BYTES, 400,
                LogConfig.MIN_CLEANABLE_DIRTY_RATIO, 0.0, LogConfig.FLUSH_ON_ACK, false));
        Log log = fx.open();
        for (int i = 0; i < 30; i++) {
            AppendResult r = log.append(Batches.keyed(fx.clock.millis(), new String[] {"k" + (i % 3)},
                    new String[] {"v" + i}), 0);
            assertThat(r.error()).isEqualTo(Errors.NONE);
        }
        LogCleaner cleaner = new LogCleaner();
        int[] rewritten = {-1};
        log.durability.beforeSegmentFlush = s -> {
            if (rewritten[0] < 0) {
                try {
                    rewritten[0] = cleaner.clean(log, fx.clock.millis());
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }
        };
        log.flush();
        log.durability.beforeSegmentFlush = null;

        assertThat(rewritten[0]).isPositive();
        assertThat(log.append(Batches.keyed(fx.clock.millis(), new String[] {"k0"}, new String[] {"last"}), 0)
                .error()).isEqualTo(Errors.NONE);
        log.flush();
        assertThat(Batches.readAll(log, 0)).extracting(Batches.Rec::value).contains("last", "v29");
    }

    @Test
    void shouldLetADeletedLogFinishItsFlushBeforeItsFilesClose() throws Exception {
        fx = new LogFixture(tmp, Map.of());
        Log log = fx.open();
        AppendResult r = log.append(Batches.batch(0, 2, "k"), 0);
        java.util.concurrent.CompletableFuture<Void> durable = log.whenDurable(r.lastOffset() + 1);
        java.util.concurrent.CountDownLatch inFlush = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        log.durability.beforeSegmentFlush = s -> {
            inFlush.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        Thread flusher = new Thread(log::flush);
        flusher.start();
        inFlush.await();
        Thread deleter = new Thread(() -> {
            try {
                log.deleteFully();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        deleter.start();
        // The deletion must wait for the flush in progress (parked on the flush lock), not
        // close the channel under it.
        Thread.State[] state = {deleter.getState()};
        Await.until("the deleter parks or ends", Duration.ofSeconds(30), () -> {
            state[0] = deleter.getState();
            return state[0] == Thread.State.WAITING || state[0] == Thread.State.TERMINATED;
        });
        release.countDown();
        flusher.join();
        deleter.join();
        assertThat(state[0]).isEqualTo(Thread.State.WAITING);
        assertThat(durable).isCompleted().isNotCompletedExceptionally();
        assertThat(fx.dir).doesNotExist();
    }
}
