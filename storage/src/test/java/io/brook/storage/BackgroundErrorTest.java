package io.brook.storage;

import io.brook.testkit.Await;
import io.brook.testkit.MutableClock;
import io.brook.wire.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * An {@link Error} thrown on a storage background thread (flusher, scheduler, preallocator)
 * never leaves anyone waiting: the affected logs go offline and answer KAFKA_STORAGE_ERROR, and
 * the thread lives on for everything else.
 */
@Timeout(60)
class BackgroundErrorTest {
    @TempDir
    Path tmp;

    private LogManager manager(int flushThreads) throws Exception {
        return LogManager.open(new LogManagerOptions(tmp).backgroundThreads(false).flushThreads(flushThreads)
                .preallocateBytes(0).clock(new MutableClock(1_700_000_000_000L)));
    }

    @Test
    void shouldFailTheWaitersOfAFlushThatThrowsAnErrorAndKeepFlushingOtherLogs() throws Exception {
        LogManager m = manager(1);
        try {
            Log a = m.getOrCreateLog("a", 0, LogConfig.defaults());
            Log b = m.getOrCreateLog("b", 0, LogConfig.defaults());
            a.durability.beforeSegmentFlush = s -> {
                throw new OutOfMemoryError("injected");
            };
            AppendResult ra = a.append(Batches.batch(0, 1, "k"), 0);
            CompletableFuture<Void> durable = a.whenDurable(ra.lastOffset() + 1);
            assertThatThrownBy(() -> durable.get(20, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
            assertThat(a.append(Batches.batch(0, 1, "k"), 0).error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR);

            // The one flusher thread is alive: another log's acks=all answer still comes.
            AppendResult rb = b.append(Batches.batch(0, 1, "k"), 0);
            b.whenDurable(rb.lastOffset() + 1).get(20, TimeUnit.SECONDS);
        } finally {
            m.close();
        }
    }

    @Test
    void shouldTakeTheDirectorysLogsOfflineWhenAScheduledTaskThrowsAnError() throws Exception {
        LogManager m = manager(1);
        try {
            Log a = m.getOrCreateLog("a", 0, LogConfig.defaults().with(Map.of(LogConfig.SEGMENT_BYTES, 200)));
            a.stateFiles.beforeWrite = f -> {
                throw new StackOverflowError("injected");
            };
            for (int i = 0; i < 3; i++) { // the rolls queue producer snapshots on the scheduler thread
                a.append(Batches.batch(i, 2, "k" + i), 0);
            }
            Await.until("the log goes offline", () -> a.durability.failure() != null);
            assertThat(a.append(Batches.batch(9, 1, "k"), 0).error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR);
            assertThat(a.read(0, 1 << 20, true).error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR);
        } finally {
            m.close();
        }
        assertThat(tmp.resolve(LogManager.CLEAN_SHUTDOWN_FILE)).doesNotExist();
    }

    @Test
    void shouldKeepTheSchedulerThreadAliveAndReportAnError() throws Exception {
        AtomicReference<Throwable> reported = new AtomicReference<>();
        try (Scheduler s = new Scheduler("test-scheduler", reported::set)) {
            s.execute(() -> {
                throw new LinkageError("injected");
            });
            CountDownLatch after = new CountDownLatch(1);
            s.execute(after::countDown);
            assertThat(after.await(20, TimeUnit.SECONDS)).isTrue();
            assertThat(reported.get()).isInstanceOf(LinkageError.class);
        }
    }

    @Test
    void shouldKeepThePreallocatorAliveAfterAnErrorAndResumeAfterThePause() throws Exception {
        try (LogFixture fx = new LogFixture(tmp, Map.of()).withPreallocation(Preallocator.MIN_BYTES)) {
            Log log = fx.open();
            fx.preallocator.beforeExtend = () -> {
                fx.preallocator.beforeExtend = null;
                throw new InternalError("injected");
            };
            log.append(Batches.batch(0, 1, "k"), 0);
            Await.until("preallocation paused", () -> !fx.preallocator.enabled() && !log.active().tail.queued.get());
            fx.clock.advance(Preallocator.PAUSE_AFTER_FAILURE_MS);
            AppendResult r = log.append(Batches.batch(1, 1, "k"), 0);
            assertThat(r.error()).isEqualTo(Errors.NONE);
            Await.until("zeros written ahead again", () -> fx.preallocator.bytesWritten() > 0);
        }
    }
}
