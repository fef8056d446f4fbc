package io.brook.storage;

import io.brook.testkit.MutableClock;
import io.brook.wire.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What a failing fsync does to durability waiters, the log and the other logs of its data directory. */
@Timeout(60)
class FlushFailureTest {
    @TempDir
    Path tmp;

    @Test
    void shouldFailWaitersAndTakeOnlyThatLogOfflineWhenForceFails() throws Exception {
        LogManager m = LogManager.open(new LogManagerOptions(tmp).backgroundThreads(false)
                .clock(new MutableClock(1_700_000_000_000L)));
        Log a = m.getOrCreateLog("a", 0, LogConfig.defaults());
        Log b = m.getOrCreateLog("b", 0, LogConfig.defaults());
        AppendResult rb = b.append(Batches.batch(0, 1, "k"), 0);
        b.whenDurable(rb.lastOffset() + 1).get(30, TimeUnit.SECONDS);
        // The disk dies between the write and the fsync: the force meets a closed channel.
        a.durability.beforeSegmentFlush = s -> {
            try {
                s.channel().close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        };
        AppendResult ra = a.append(Batches.batch(0, 1, "k"), 0);
        assertThat(ra.error()).isEqualTo(Errors.NONE);
        CompletableFuture<Void> durable = a.whenDurable(ra.lastOffset() + 1);
        assertThatThrownBy(() -> durable.get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(IOException.class);

        assertThat(a.append(Batches.batch(0, 1, "k"), 0).error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR);
        assertThat(a.read(0, 1 << 20, true).error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR);
        assertThat(a.whenDurable(ra.lastOffset() + 2)).isCompletedExceptionally();
        // Unlike Kafka's log directory failure, the other logs of the directory keep serving:
        // each one acknowledges only what its own fsync made durable.
        AppendResult rb2 = b.append(Batches.batch(0, 1, "k"), 0);
        assertThat(rb2.error()).isEqualTo(Errors.NONE);
        b.whenDurable(rb2.lastOffset() + 1).get(30, TimeUnit.SECONDS);
        assertThat(b.read(0, 1 << 20, true).error()).isEqualTo(Errors.NONE);
        assertThat(m.getOrCreateLog("c", 0, LogConfig.defaults())).isNotNull();
        m.close();
        // What was written but never forced must be checked at the next start.
        assertThat(tmp.resolve(LogManager.CLEAN_SHUTDOWN_FILE)).doesNotExist();
    }

    @Test
    void shouldFailWaitersWhenFlushThrowsAnUncheckedException() throws Exception {
        try (LogFixture fx = new LogFixture(tmp, Map.of())) {
            Log log = fx.open();
            AppendResult r = log.append(Batches.batch(0, 1, "k"), 0);
            CompletableFuture<Void> durable = log.whenDurable(r.lastOffset() + 1);
            log.durability.beforeSegmentFlush = s -> {
                throw new UncheckedIOException(new IOException("injected"));
            };
            log.flush();
            assertThat(durable).isCompletedExceptionally();
            assertThat(log.append(Batches.batch(0, 1, "k"), 0).error()).isEqualTo(Errors.KAFKA_STORAGE_ERROR);
        }
    }

    @Test
    void shouldFailWaitersRegisteredAfterTheLogWasClosed() throws Exception {
        try (LogFixture fx = new LogFixture(tmp, Map.of())) {
            Log log = fx.open();
            AppendResult r = log.append(Batches.batch(0, 1, "k"), 0);
            log.closeAbruptly();
            assertThat(log.whenDurable(r.lastOffset() + 1)).isCompletedExceptionally();
        }
    }
}
