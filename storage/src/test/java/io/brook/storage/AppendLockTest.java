package io.brook.storage;

import io.brook.testkit.Await;
import io.brook.wire.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * No fsync under the append lock: while DeleteRecords, retention or a roll writes the log's
 * state files durably, appends to the same log go on.
 */
@Timeout(60)
class AppendLockTest {
    @TempDir
    Path tmp;
    LogFixture fx;
    private final CountDownLatch inWrite = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void tearDown() throws Exception {
        release.countDown();
        fx.close();
    }

    /** Makes the first durable write of a file named {@code suffix} wait until {@link #release}. */
    private void blockWritesOf(Log log, String suffix) {
        log.stateFiles.beforeWrite = file -> {
            if (file.getFileName().toString().endsWith(suffix) && inWrite.getCount() > 0) {
                inWrite.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
    }

    /** Runs {@code action} on a thread of its own. */
    private static <T> CompletableFuture<T> async(Supplier<T> action) {
        return CompletableFuture.supplyAsync(action, r -> new Thread(r, "append-lock-test").start());
    }

    /** Runs {@code action} on its own thread and waits until it is inside the blocked write. */
    private <T> CompletableFuture<T> startBlocked(Supplier<T> action) throws InterruptedException {
        CompletableFuture<T> result = async(action);
        assertThat(inWrite.await(30, TimeUnit.SECONDS)).as("the write started").isTrue();
        return result;
    }

    private static void assertAppendsWhileBlocked(Log log) throws Exception {
        AppendResult r = async(() -> log.append(Batches.batch(1000, 2, "k"), 0)).get(30, TimeUnit.SECONDS);
        assertThat(r.error()).isEqualTo(Errors.NONE);
    }

    /** A log of {@code batches} durable batches of 2 records whose first write of the log start offset blocks. */
    private Log openBlockingTheLogStartOffset(Map<String, ?> settings, int batches) throws Exception {
        fx = new LogFixture(tmp, settings);
        Log log = fx.open();
        for (int i = 0; i < batches; i++) {
            log.append(Batches.batch(1000, 2, "k"), 0);
        }
        log.flush();
        blockWritesOf(log, LogStateFiles.LOG_START_OFFSET_FILE);
        return log;
    }

    private String logStartOffsetFile() throws Exception {
        return Files.readString(fx.dir.resolve(LogStateFiles.LOG_START_OFFSET_FILE), StandardCharsets.UTF_8);
    }

    @Test
    void shouldAppendWhileDeleteRecordsWritesTheLogStartOffset() throws Exception {
        Log log = openBlockingTheLogStartOffset(Map.of(), 5);
        CompletableFuture<Errors> deleted = startBlocked(() -> log.deleteRecordsBefore(4));

        assertAppendsWhileBlocked(log);
        assertThat(deleted).isNotDone();
        release.countDown();
        assertThat(deleted.get(30, TimeUnit.SECONDS)).isEqualTo(Errors.NONE);
        assertThat(log.logStartOffset()).isEqualTo(4);
        assertThat(logStartOffsetFile()).isEqualTo("4\n");
    }

    @Test
    void shouldAppendWhileRetentionWritesTheLogStartOffset() throws Exception {
        Log log = openBlockingTheLogStartOffset(Map.of(LogConfig.SEGMENT_BYTES, 300, LogConfig.RETENTION_BYTES, 600),
                12);
        CompletableFuture<Integer> deleted = startBlocked(() -> log.deleteExpiredSegments(fx.clock.millis()));

        assertAppendsWhileBlocked(log);
        release.countDown();
        assertThat(deleted.get(30, TimeUnit.SECONDS)).isPositive();
        long start = log.logStartOffset();
        assertThat(start).isPositive().isEqualTo(log.segments.firstKey());
        assertThat(fx.reopen().logStartOffset()).isEqualTo(start);
    }

    @Test
    void shouldLeaveTheSnapshotOfARollToTheSchedulerSoThatTheAppendNeverWaits() throws Exception {
        fx = new LogFixture(tmp, Map.of(LogConfig.SEGMENT_BYTES, 300));
        Log log = fx.open();
        log.append(Batches.batch(1000, 2, "k"), 0);
        blockWritesOf(log, ProducerStateManager.SNAPSHOT_SUFFIX);
        int before = log.segmentCount();
        while (log.segmentCount() == before) {
            assertThat(log.append(Batches.batch(1000, 2, "k"), 0).error()).isEqualTo(Errors.NONE);
        }
        // The roll returned; its snapshot is being written on the scheduler's thread.
        assertThat(inWrite.await(30, TimeUnit.SECONDS)).as("the snapshot write started").isTrue();
        while (log.segmentCount() == before + 1) {
            assertThat(log.append(Batches.batch(1000, 2, "k"), 0).error()).isEqualTo(Errors.NONE);
        }
        release.countDown();
        Await.until("both snapshots", () ->
                fx.dir.toFile().list((d, n) -> n.endsWith(ProducerStateManager.SNAPSHOT_SUFFIX)).length == 2);
    }

    @Test
    void shouldNeverOverwriteALaterLogStartOffsetWithAnEarlierOne() throws Exception {
        Log log = openBlockingTheLogStartOffset(Map.of(), 5);
        CompletableFuture<Errors> first = startBlocked(() -> log.deleteRecordsBefore(4));
        CompletableFuture<Errors> second = async(() -> log.deleteRecordsBefore(6));
        // The second request moved the start in memory and waits for the first one's write.
        Await.until("the second DeleteRecords moved the start", () -> log.logStartOffset() == 6);
        release.countDown();
        assertThat(first.get(30, TimeUnit.SECONDS)).isEqualTo(Errors.NONE);
        assertThat(second.get(30, TimeUnit.SECONDS)).isEqualTo(Errors.NONE);
        assertThat(logStartOffsetFile()).isEqualTo("6\n");
        assertThat(fx.reopen().logStartOffset()).isEqualTo(6);
    }
}
