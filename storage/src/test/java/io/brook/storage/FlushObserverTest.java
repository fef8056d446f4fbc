package io.brook.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.Await;
import io.brook.testkit.MutableClock;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The flusher tells its observer of each round that made data durable, and what stays to be forced. */
class FlushObserverTest {
    @TempDir
    Path tmp;

    @Test
    @Timeout(30)
    void reportsEachRoundThatMadeOffsetsDurable() throws Exception {
        AtomicLong rounds = new AtomicLong();
        AtomicLong offsets = new AtomicLong();
        AtomicLong nanos = new AtomicLong();
        LogManagerOptions options = new LogManagerOptions(tmp).clock(new MutableClock(1_000_000L)).backgroundThreads(false)
                .flushObserver((n, o) -> {
                    nanos.addAndGet(n);
                    offsets.addAndGet(o);
                    rounds.incrementAndGet();
                });
        try (LogManager m = LogManager.open(options)) {
            Log log = m.getOrCreateLog("t", 0, LogConfig.defaults());
            log.append(Batches.batch(1000, 3, "k"), 0);
            log.append(Batches.batch(1000, 2, "k"), 0);
            // (no check that bytes are pending here: the group-commit flusher may already have forced them)
            log.whenDurable(5).get(10, TimeUnit.SECONDS);
            // the waiters complete inside the round, the observer is told right after it
            Await.until("the observer is told of five durable offsets", () -> offsets.get() == 5);
            assertThat(rounds.get()).isBetween(1L, 2L);
            assertThat(nanos.get()).isPositive();
            assertThat(log.bytesNotDurable()).isZero();
        }
    }
}
