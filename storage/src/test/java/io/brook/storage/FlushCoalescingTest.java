package io.brook.storage;

import io.brook.testkit.Await;
import io.brook.testkit.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code brook.log.flush.coalesce.ms}: when appends nobody waits for overtook a force, the next
 * force is delayed after that one's end; a waiter ends the delay at once; an idle log is forced at
 * once; while nobody reads at the log's end the delay is {@code coalesce.unread.ms}, and a read
 * there cuts it back. On a manual timer and time source: nothing is forced by a delay until the
 * test runs the timer.
 */
@Timeout(60)
class FlushCoalescingTest {
    private static final long MS = 1_000_000L;
    private static final long COALESCE_MS = 2;
    private static final long UNREAD_MS = 20;

    @TempDir
    Path tmp;
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final ManualTimer timer = new ManualTimer();
    private final Scheduler scheduler = new Scheduler("s");
    private Flusher flusher;
    private Log log;

    /** The timer's tasks wait until {@link #runAll} runs them. */
    private static final class ManualTimer implements Flusher.Timer {
        final List<Long> delays = new ArrayList<>();
        final List<Runnable> tasks = new ArrayList<>();

        @Override
        public synchronized void schedule(Runnable task, long delayNanos) {
            delays.add(delayNanos);
            tasks.add(task);
        }

        synchronized int pending() {
            return tasks.size();
        }

        synchronized long lastDelay() {
            return delays.get(delays.size() - 1);
        }

        void runAll() {
            List<Runnable> due;
            synchronized (this) {
                due = new ArrayList<>(tasks);
                tasks.clear();
            }
            due.forEach(Runnable::run);
        }
    }

    private Log open(long coalesceMs) throws IOException {
        return open(coalesceMs, LogConfig.defaults());
    }

    private Log open(long coalesceMs, LogConfig cfg) throws IOException {
        return open(coalesceMs, coalesceMs, cfg);
    }

    private Log open(long coalesceMs, long unreadMs, LogConfig cfg) throws IOException {
        flusher = new Flusher("flusher", 1, coalesceMs, unreadMs, timer, nanos::get);
        log = Log.open(tmp.resolve("t-0"), "t", 0, cfg, 0, true, new MutableClock(0), scheduler, flusher);
        return log;
    }

    @AfterEach
    void tearDown() throws IOException {
        if (log != null) {
            log.close();
        }
        if (flusher != null) {
            flusher.close();
        }
        scheduler.close();
    }

    private static ByteBuffer batch() {
        return Batches.batch(0, 1, "k");
    }

    private int state() {
        return log.durability.flushState.get();
    }

    /** Waits until the flusher made {@code offset} durable and let go of the log. */
    private void awaitForced(long offset) {
        Await.until("offset " + offset + " forced", () -> log.durableOffset() >= offset
                && state() == Flusher.IDLE);
        assertThat(log.durableOffset()).isEqualTo(offset);
    }

    /**
     * The log under load: one append whose force is held until {@code during} has appended more
     * (lazily: nobody waits), then let go. Appends overtook that force, so when it ends the next
     * one is delayed until the coalescing time after its end (the clock stands still meanwhile).
     * Returns the last append of {@code during}.
     */
    private AppendResult delayedAfterAnOvertakenForce(int during) throws InterruptedException {
        long end = log.logEndOffset();
        CountDownLatch inForce = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        blockNextForce(inForce, release);
        AppendResult last;
        try {
            log.append(batch(), 0);
            assertThat(inForce.await(30, TimeUnit.SECONDS)).isTrue();
            last = null;
            for (int i = 0; i < during; i++) {
                last = log.append(batch(), 0);
            }
            assertThat(state()).isEqualTo(Flusher.FLUSHING_AGAIN_LAZY);
        } finally {
            release.countDown(); // before the log closes: a close waits for the blocked force
        }
        // the state changes first, then the timer is asked to look
        Await.until("the next force delayed", () -> Flusher.isDelayed(state()) && timer.pending() > 0);
        assertThat(log.durableOffset()).isEqualTo(end + 1);
        return last;
    }

    @Test
    void shouldDelayTheNextForceAfterAnOvertakenOneAndCoverTheAppendsMeanwhileWithOne() throws Exception {
        open(COALESCE_MS);
        delayedAfterAnOvertakenForce(2);
        long forces = log.flushCount();
        assertThat(timer.pending()).isEqualTo(1);
        assertThat(timer.lastDelay()).isEqualTo(COALESCE_MS * MS); // due at the force's end + 2 ms

        nanos.addAndGet(MS / 2);
        for (int i = 0; i < 3; i++) { // they ride on the delayed force
            log.append(batch(), 0);
        }
        assertThat(Flusher.isDelayed(state())).isTrue();
        assertThat(log.highWatermark()).isEqualTo(1);

        nanos.addAndGet(MS); // not due yet: the timer looks again later
        timer.runAll();
        assertThat(Flusher.isDelayed(state())).isTrue();
        assertThat(timer.pending()).isEqualTo(1);
        assertThat(timer.lastDelay()).isEqualTo(MS / 2);

        nanos.addAndGet(MS / 2);
        timer.runAll();
        awaitForced(6);
        assertThat(log.flushCount() - forces).isEqualTo(1);
        assertThat(log.highWatermark()).isEqualTo(6);
        assertThat(timer.pending()).isZero();
    }

    @Test
    void shouldForceAtOnceAfterAForceThatNoAppendOvertook() throws Exception {
        // a client that sends a record only once it has seen the last one (an end-to-end
        // latency probe): every force ends before the next append, none of them is delayed
        open(COALESCE_MS);
        for (int i = 1; i <= 5; i++) {
            log.append(batch(), 0);
            awaitForced(i);
        }
        assertThat(timer.pending()).isZero();
    }

    @Test
    void shouldForceALazyRequestAtOnceAfterAQuietMoment() throws Exception {
        open(COALESCE_MS);
        delayedAfterAnOvertakenForce(1);
        nanos.addAndGet(COALESCE_MS * MS);
        timer.runAll();
        awaitForced(2); // no append overtook this one

        nanos.addAndGet(COALESCE_MS * MS); // quiet since the last force
        log.append(batch(), 0);
        awaitForced(3);
        assertThat(timer.pending()).isZero();
    }

    @Test
    void shouldForceAtOnceWhenAWaiterArrivesWhileDelayed() throws Exception {
        open(COALESCE_MS);
        AppendResult r = delayedAfterAnOvertakenForce(1);
        long forces = log.flushCount();

        log.whenDurable(r.lastOffset() + 1).get(30, TimeUnit.SECONDS); // without the timer
        awaitForced(2);
        assertThat(log.flushCount() - forces).isEqualTo(1);

        // The delay that the waiter ended does nothing when its time comes.
        nanos.addAndGet(COALESCE_MS * MS);
        timer.runAll();
        assertThat(state()).isEqualTo(Flusher.IDLE);
        assertThat(log.flushCount() - forces).isEqualTo(1);
    }

    @Test
    void shouldNotLetAnEndedDelayShortenTheNextOne() throws Exception {
        open(COALESCE_MS);
        AppendResult r = delayedAfterAnOvertakenForce(1); // that force ended at t0: delayed until t0 + 2 ms
        nanos.addAndGet(MS);
        // A waiter ends the delay: forced at t0 + 1 ms, and overtaken again (still under load).
        CountDownLatch inForce = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        blockNextForce(inForce, release);
        CompletableFuture<Void> durable;
        try {
            durable = log.whenDurable(r.lastOffset() + 1);
            assertThat(inForce.await(30, TimeUnit.SECONDS)).isTrue();
            log.append(batch(), 0);
        } finally {
            release.countDown();
        }
        durable.get(30, TimeUnit.SECONDS);
        Await.until("a new delay: until t0 + 3 ms", () -> Flusher.isDelayed(state()));
        int delayedAgain = state();

        nanos.addAndGet(MS); // the first delay's time
        timer.runAll();
        assertThat(state()).isEqualTo(delayedAgain);
        assertThat(log.durableOffset()).isEqualTo(2);

        nanos.addAndGet(MS);
        timer.runAll();
        awaitForced(3);
    }

    @Test
    void shouldForceAtOnceAfterAForceWhenAWaiterArrivedDuringIt() throws Exception {
        open(COALESCE_MS);
        CountDownLatch inForce = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        blockNextForce(inForce, release);
        try {
            log.append(batch(), 0);
            assertThat(inForce.await(30, TimeUnit.SECONDS)).isTrue();
            AppendResult r = log.append(batch(), 0); // lazy, during the force
            assertThat(state()).isEqualTo(Flusher.FLUSHING_AGAIN_LAZY);
            CompletableFuture<Void> durable = log.whenDurable(r.lastOffset() + 1);
            assertThat(state()).isEqualTo(Flusher.FLUSHING_AGAIN);
            release.countDown();
            durable.get(30, TimeUnit.SECONDS); // without the timer
            assertThat(timer.pending()).isZero();
        } finally {
            release.countDown(); // before the log closes: a close waits for the blocked force
        }
    }

    @Test
    void shouldForceEveryRequestAtOnceWithoutCoalescing() throws Exception {
        open(0);
        log.append(batch(), 0);
        awaitForced(1);
        log.append(batch(), 0);
        awaitForced(2);
        assertThat(timer.pending()).isZero();
    }

    @Test
    void shouldForceAtOnceWhenFlushMessagesIsReachedWhateverTheCoalescing() throws Exception {
        open(COALESCE_MS, LogConfig.defaults().with(java.util.Map.of(LogConfig.FLUSH_ON_ACK, false,
                LogConfig.FLUSH_MESSAGES, 2)));
        log.append(batch(), 0);
        log.append(batch(), 0);
        awaitForced(2);
        log.append(batch(), 0);
        assertThat(state()).isEqualTo(Flusher.IDLE); // fsync-on-ack off: nothing asked for yet
        log.append(batch(), 0); // flush.messages reached right after a force: at once all the same
        awaitForced(4);
        assertThat(timer.pending()).isZero();
    }

    @Test
    void shouldNotForceADelayedLogThatWasClosedMeanwhile() throws Exception {
        open(COALESCE_MS);
        delayedAfterAnOvertakenForce(1);
        log.close(); // forces everything itself
        assertThat(log.durableOffset()).isEqualTo(2);
        AtomicInteger forcedAfterClose = new AtomicInteger();
        log.durability.beforeSegmentFlush = s -> forcedAfterClose.incrementAndGet();
        long forces = log.flushCount();

        nanos.addAndGet(COALESCE_MS * MS);
        timer.runAll();
        Await.until("the flusher let go of the closed log", () -> state() == Flusher.IDLE);
        assertThat(forcedAfterClose.get()).isZero();
        assertThat(log.flushCount()).isEqualTo(forces);
        // the flusher goes on with other logs
        try (Log other = Log.open(tmp.resolve("t-1"), "t", 1, LogConfig.defaults(), 0, true, new MutableClock(0),
                scheduler, flusher)) {
            AppendResult r = other.append(batch(), 0);
            other.whenDurable(r.lastOffset() + 1).get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void shouldNotForceADelayedLogThatWasDeletedMeanwhile() throws Exception {
        open(COALESCE_MS);
        delayedAfterAnOvertakenForce(1);
        AtomicInteger forced = new AtomicInteger();
        log.durability.beforeSegmentFlush = s -> forced.incrementAndGet();
        log.deleteFully();

        nanos.addAndGet(COALESCE_MS * MS);
        timer.runAll();
        Await.until("the flusher let go of the deleted log", () -> state() == Flusher.IDLE);
        assertThat(forced.get()).isZero();
        assertThat(log.durableOffset()).isEqualTo(1);
    }

    @Test
    void shouldNotForceADelayedLogThatFailedMeanwhile() throws Exception {
        open(COALESCE_MS);
        AppendResult r = delayedAfterAnOvertakenForce(1);
        AtomicInteger forced = new AtomicInteger();
        log.durability.beforeSegmentFlush = s -> forced.incrementAndGet();
        log.durability.fail(new IOException("the disk is gone"));

        nanos.addAndGet(COALESCE_MS * MS);
        timer.runAll();
        Await.until("the flusher let go of the failed log", () -> state() == Flusher.IDLE);
        assertThat(forced.get()).isZero();
        assertThat(log.highWatermark()).isEqualTo(1);
        assertThatThrownBy(() -> log.whenDurable(r.lastOffset() + 1).get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(IOException.class);
    }

    @Test
    void shouldForceDelayedLogsWhenTheFlusherCloses() throws Exception {
        open(COALESCE_MS);
        delayedAfterAnOvertakenForce(1);
        flusher.close();
        assertThat(log.durableOffset()).isEqualTo(2);
        assertThat(log.highWatermark()).isEqualTo(2);
    }

    @Test
    void shouldMakeLazyAppendsVisibleOnTheFlushersOwnTimer() throws Exception {
        LogManagerOptions options = new LogManagerOptions(tmp).backgroundThreads(false).flushCoalesceMs(5);
        try (LogManager m = LogManager.open(options)) {
            Log l = m.getOrCreateLog("t", 0, LogConfig.defaults());
            for (int i = 0; i < 200; i++) {
                l.append(batch(), 0);
            }
            Await.until("every append visible", () -> l.highWatermark() == 200);
            // lazy appends ride on few forces (a test machine may be slow: no exact count)
            assertThat(l.flushCount()).isLessThan(200);
        }
    }

    /** Reads at the high watermark: nothing new there, so the reader is at the log's end. */
    private void readAtEnd() {
        LogReadResult r = log.read(log.highWatermark(), 1 << 20, true);
        assertThat(r.records()).isNull();
    }

    @Test
    void shouldDelayTheNextForceLongerWhileNobodyReadsAtTheEnd() throws Exception {
        open(COALESCE_MS, UNREAD_MS, LogConfig.defaults());
        delayedAfterAnOvertakenForce(2);
        long forces = log.flushCount();
        assertThat(timer.lastDelay()).isEqualTo(UNREAD_MS * MS);

        nanos.addAndGet(COALESCE_MS * MS); // the short delay is over, but nobody reads
        timer.runAll();
        assertThat(Flusher.isDelayed(state())).isTrue();
        assertThat(timer.lastDelay()).isEqualTo((UNREAD_MS - COALESCE_MS) * MS);
        assertThat(log.highWatermark()).isEqualTo(1);

        nanos.addAndGet((UNREAD_MS - COALESCE_MS) * MS);
        timer.runAll();
        awaitForced(3);
        assertThat(log.flushCount() - forces).isEqualTo(1);
    }

    @Test
    void shouldCutALongDelayBackWhenAReaderArrivesAtTheEnd() throws Exception {
        open(COALESCE_MS, UNREAD_MS, LogConfig.defaults());
        delayedAfterAnOvertakenForce(2);
        nanos.addAndGet(MS);
        readAtEnd(); // a consumer's fetch finds nothing new: the short due time counts
        assertThat(timer.lastDelay()).isEqualTo(MS);
        timer.runAll();
        assertThat(Flusher.isDelayed(state())).isTrue(); // at 1 ms of 2: not yet

        nanos.addAndGet(MS);
        timer.runAll();
        awaitForced(3);
    }

    @Test
    void shouldEndALongDelayAtOnceWhenAReaderArrivesAfterTheShortOneIsOver() throws Exception {
        open(COALESCE_MS, UNREAD_MS, LogConfig.defaults());
        delayedAfterAnOvertakenForce(1);
        nanos.addAndGet(5 * MS);
        readAtEnd();
        assertThat(timer.lastDelay()).isZero();
        timer.runAll();
        awaitForced(2);
    }

    @Test
    void shouldUseTheShortDelayWhileAReaderWasAtTheEndRecently() throws Exception {
        open(COALESCE_MS, UNREAD_MS, LogConfig.defaults());
        readAtEnd(); // a tailing consumer
        nanos.addAndGet((UNREAD_MS - 1) * MS);
        delayedAfterAnOvertakenForce(1);
        assertThat(timer.lastDelay()).isEqualTo(COALESCE_MS * MS);
        nanos.addAndGet(COALESCE_MS * MS);
        timer.runAll();
        awaitForced(2);

        // the reader left: more than coalesce.unread.ms since it was last at the end
        nanos.addAndGet(UNREAD_MS * MS);
        delayedAfterAnOvertakenForce(1);
        assertThat(timer.lastDelay()).isEqualTo(UNREAD_MS * MS);
    }

    @Test
    void shouldNotHurryADelayForAReadBehindTheEnd() throws Exception {
        open(COALESCE_MS, UNREAD_MS, LogConfig.defaults());
        delayedAfterAnOvertakenForce(1);
        int pending = timer.pending();
        assertThat(log.read(0, 1 << 20, true).records()).isNotNull(); // a consumer catching up
        assertThat(timer.pending()).isEqualTo(pending);
        nanos.addAndGet(COALESCE_MS * MS);
        timer.runAll();
        assertThat(Flusher.isDelayed(state())).isTrue();
    }

    @Test
    void shouldTakeAnUnreadDelayShorterThanTheCoalescingTimeAsTheCoalescingTime() throws Exception {
        open(COALESCE_MS, 1, LogConfig.defaults());
        delayedAfterAnOvertakenForce(1);
        assertThat(timer.lastDelay()).isEqualTo(COALESCE_MS * MS);
    }

    @Test
    void shouldRefuseACoalescingTimeOutsideItsRange() {
        LogManagerOptions options = new LogManagerOptions(tmp);
        assertThatThrownBy(() -> options.flushCoalesceMs(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> options.flushCoalesceMs(1001)).isInstanceOf(IllegalArgumentException.class);
        options.flushCoalesceMs(0).flushCoalesceMs(1000);
        assertThatThrownBy(() -> options.flushCoalesceUnreadMs(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("brook.log.flush.coalesce.unread.ms");
        assertThatThrownBy(() -> options.flushCoalesceUnreadMs(1001)).isInstanceOf(IllegalArgumentException.class);
        options.flushCoalesceUnreadMs(0).flushCoalesceUnreadMs(1000);
    }

    /** The log's next force signals {@code inForce} and waits for {@code release}; later ones pass. */
    private void blockNextForce(CountDownLatch inForce, CountDownLatch release) {
        AtomicBoolean first = new AtomicBoolean(true);
        log.durability.beforeSegmentFlush = s -> {
            if (first.getAndSet(false)) {
                inForce.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
    }
}
