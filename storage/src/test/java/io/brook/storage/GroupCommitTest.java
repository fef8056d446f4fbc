package io.brook.storage;

import io.brook.testkit.Await;
import io.brook.testkit.MutableClock;
import io.brook.wire.protocol.Errors;
import org.apache.kafka.common.compress.Compression;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Flusher threads serving many partitions; appenders never wait for the disk. */
class GroupCommitTest {
    @TempDir
    Path tmp;

    @Test
    @Timeout(60)
    void shouldMakeEveryAppendDurableThroughOneFlusherAcrossPartitions() throws Exception {
        appendFromManyThreadsAndAwaitDurability(1);
    }

    @Test
    @Timeout(60)
    void shouldMakeEveryAppendDurableThroughSeveralFlusherThreadsAcrossPartitions() throws Exception {
        appendFromManyThreadsAndAwaitDurability(3);
    }

    /**
     * A partition whose fsync is stuck must not hold back the others: with two flusher threads
     * the second partition becomes durable while the first one's force is blocked.
     */
    @Test
    @Timeout(30)
    void shouldForceOtherPartitionsWhileOnePartitionsForceIsBlocked() throws Exception {
        MutableClock clock = new MutableClock(0);
        java.util.concurrent.CountDownLatch inForce = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        try (Scheduler scheduler = new Scheduler("s"); Flusher flusher = new Flusher("flusher", 2);
             Log slow = Log.open(tmp.resolve("t-0"), "t", 0, LogConfig.defaults(), 0, true, clock, scheduler, flusher);
             Log fast = Log.open(tmp.resolve("t-1"), "t", 1, LogConfig.defaults(), 0, true, clock, scheduler,
                     flusher)) {
            blockFirstForce(slow, inForce, release);
            try {
                slow.append(Batches.batch(0, 1, "k"), 0);
                CompletableFuture<Void> slowDurable = slow.whenDurable(1);
                assertThat(inForce.await(20, TimeUnit.SECONDS)).isTrue();
                // asking again while it is being forced must not tie up the second thread
                slow.append(Batches.batch(0, 1, "k"), 0);
                slow.whenDurable(2);

                fast.append(Batches.batch(0, 1, "k"), 0);
                fast.whenDurable(1).get(20, TimeUnit.SECONDS);
                assertThat(fast.durableOffset()).isEqualTo(1);
                assertThat(slowDurable).isNotDone();

                release.countDown();
                slow.whenDurable(2).get(20, TimeUnit.SECONDS);
                assertThat(slow.durableOffset()).isEqualTo(2);
            } finally {
                release.countDown(); // before the logs close: a close waits for the blocked force
            }
        }
    }

    /**
     * Appends that arrive while a partition is being forced are covered by one more force, not
     * one each: the log is queued at most once while a flush of it is in progress.
     */
    @Test
    @Timeout(30)
    void shouldCoverAppendsDuringAForceWithOneMoreForceWhateverTheNumberOfThreads() throws Exception {
        MutableClock clock = new MutableClock(0);
        java.util.concurrent.CountDownLatch inForce = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        try (Scheduler scheduler = new Scheduler("s"); Flusher flusher = new Flusher("flusher", 4);
             Log log = Log.open(tmp.resolve("t-0"), "t", 0, LogConfig.defaults(), 0, true, clock, scheduler,
                     flusher)) {
            blockFirstForce(log, inForce, release);
            try {
                log.append(Batches.batch(0, 1, "k"), 0);
                assertThat(inForce.await(20, TimeUnit.SECONDS)).isTrue();
                long forcesBefore = log.flushCount();
                for (int i = 0; i < 50; i++) {
                    log.append(Batches.batch(0, 1, "k"), 0);
                    log.whenDurable(i + 2);
                }
                release.countDown();
                log.whenDurable(51).get(20, TimeUnit.SECONDS);
                // the blocked force (covering offset 0) and one more for the 50 appends made meanwhile
                assertThat(log.flushCount() - forcesBefore).isEqualTo(2);
            } finally {
                release.countDown(); // before the log closes: a close waits for the blocked force
            }
        }
    }

    /** The log's first force signals {@code inForce} and waits for {@code release}; later ones pass. */
    private static void blockFirstForce(Log log, java.util.concurrent.CountDownLatch inForce,
            java.util.concurrent.CountDownLatch release) {
        java.util.concurrent.atomic.AtomicBoolean first = new java.util.concurrent.atomic.AtomicBoolean(true);
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

    private void appendFromManyThreadsAndAwaitDurability(int flusherThreads) throws Exception {
        int partitions = 4;
        int threadsPerPartition = 2;
        int appendsPerThread = 200;
        MutableClock clock = new MutableClock(0);
        List<Log> logs = new ArrayList<>();
        try (Scheduler scheduler = new Scheduler("s"); Flusher flusher = new Flusher("flusher", flusherThreads)) {
            for (int p = 0; p < partitions; p++) {
                logs.add(Log.open(tmp.resolve("t-" + p), "t", p, LogConfig.defaults(), 0, true, clock, scheduler,
                        flusher));
            }
            List<Thread> threads = new ArrayList<>();
            List<CompletableFuture<Void>> durable = java.util.Collections.synchronizedList(new ArrayList<>());
            List<Throwable> errors = java.util.Collections.synchronizedList(new ArrayList<>());
            for (Log log : logs) {
                for (int t = 0; t < threadsPerPartition; t++) {
                    Thread th = new Thread(() -> {
                        for (int i = 0; i < appendsPerThread; i++) {
                            AppendResult r = log.append(Batches.batch(i, 1, "k"), 0);
                            if (r.error() != Errors.NONE) {
                                errors.add(new AssertionError(r.toString()));
                                return;
                            }
                            durable.add(log.whenDurable(r.lastOffset() + 1));
                        }
                    });
                    threads.add(th);
                    th.start();
                }
            }
            for (Thread th : threads) {
                th.join();
            }
            assertThat(errors).isEmpty();
            CompletableFuture.allOf(durable.toArray(new CompletableFuture<?>[0])).get(30, TimeUnit.SECONDS);
            for (Log log : logs) {
                assertThat(log.logEndOffset()).isEqualTo((long) threadsPerPartition * appendsPerThread);
                assertThat(log.highWatermark()).isEqualTo(log.logEndOffset());
                List<Batches.Rec> recs = Batches.readAll(log, 0);
                assertThat(recs).hasSize(threadsPerPartition * appendsPerThread);
                for (int i = 0; i < recs.size(); i++) {
                    assertThat(recs.get(i).offset()).isEqualTo(i);
                }
                assertThat(log.flushCount()).isLessThanOrEqualTo(log.logEndOffset());
            }
        } finally {
            for (Log log : logs) {
                log.close();
            }
        }
    }

    @Test
    @Timeout(30)
    void shouldFlushByMessageCountWhenFlushOnAckIsOff() throws Exception {
        MutableClock clock = new MutableClock(0);
        LogConfig cfg = LogConfig.defaults().with(java.util.Map.of(LogConfig.FLUSH_ON_ACK, false,
                LogConfig.FLUSH_MESSAGES, 3));
        try (Scheduler scheduler = new Scheduler("s"); Flusher flusher = new Flusher("flusher");
             Log log = Log.open(tmp.resolve("t-0"), "t", 0, cfg, 0, true, clock, scheduler, flusher)) {
            log.append(Batches.batch(0, 1, "k"), 0);
            log.append(Batches.batch(0, 1, "k"), 0);
            assertThat(log.highWatermark()).isEqualTo(2);
            assertThat(log.durableOffset()).isZero();
            log.append(Batches.batch(0, 1, "k"), 0);
            Await.until("three records durable", Duration.ofSeconds(20), () -> log.durableOffset() >= 3);
            assertThat(log.durableOffset()).isEqualTo(3);
        }
    }

    @Test
    @Timeout(30)
    void shouldFlushByTimeWhenFlushOnAckIsOff() throws Exception {
        MutableClock clock = new MutableClock(0);
        LogConfig cfg = LogConfig.defaults().with(java.util.Map.of(LogConfig.FLUSH_ON_ACK, false,
                LogConfig.FLUSH_MS, 1000));
        try (Scheduler scheduler = new Scheduler("s"); Flusher flusher = new Flusher("flusher");
             Log log = Log.open(tmp.resolve("t-0"), "t", 0, cfg, 0, true, clock, scheduler, flusher)) {
            log.append(Batches.batch(0, 1, "k"), 0);
            log.maybeFlushByTime(clock.millis() + 999);
            assertThat(log.durableOffset()).isZero();
            clock.advance(1000);
            log.maybeFlushByTime(clock.millis());
            Await.until("the record durable", Duration.ofSeconds(20), () -> log.durableOffset() >= 1);
            assertThat(log.durableOffset()).isEqualTo(1);
        }
    }

    @Test
    @Timeout(60)
    void shouldServeOnlyWholeValidBatchesToReadersRacingWithAppendsRollsAndFlushes() throws Exception {
        MutableClock clock = new MutableClock(0);
        LogConfig cfg = LogConfig.defaults().with(java.util.Map.of(LogConfig.SEGMENT_BYTES, 20_000,
                LogConfig.INDEX_INTERVAL_BYTES, 500));
        java.util.concurrent.atomic.AtomicLong notifiedHw = new java.util.concurrent.atomic.AtomicLong();
        try (Scheduler scheduler = new Scheduler("s"); Flusher flusher = new Flusher("flusher");
             Log log = Log.open(tmp.resolve("t-0"), "t", 0, cfg, 0, true, clock, scheduler, flusher)) {
            log.setHighWatermarkListener((l, hw) -> notifiedHw.accumulateAndGet(hw, Math::max));
            // The readers start with data to read: none of them waits idle for the first flush.
            AppendResult first = log.append(Batches.batch(0, 1, "k"), 0);
            log.whenDurable(first.lastOffset() + 1).get(30, TimeUnit.SECONDS);
            java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
            List<Throwable> errors = java.util.Collections.synchronizedList(new ArrayList<>());
            List<Thread> readers = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                long seed = t;
                Thread reader = new Thread(() -> {
                    java.util.Random rnd = new java.util.Random(seed);
                    try {
                        while (!done.get()) {
                            long hw = log.highWatermark();
                            long offset = (long) (rnd.nextDouble() * hw);
                            LogReadResult r = log.read(offset, 1 + rnd.nextInt(5000), true);
                            if (r.error() != Errors.NONE || r.records() == null) {
                                throw new AssertionError("read at " + offset + " below " + hw + ": " + r);
                            }
                            var batches = Batches.batches(r.records());
                            if (batches.isEmpty() || batches.get(0).lastOffset() < offset) {
                                throw new AssertionError("first batch does not hold " + offset);
                            }
                            for (var b : batches) {
                                b.ensureValid();
                                if (b.lastOffset() >= r.highWatermark()) {
                                    throw new AssertionError("batch past the high watermark");
                                }
                            }
                        }
                    } catch (Throwable e) {
                        errors.add(e);
                    }
                });
                readers.add(reader);
                reader.start();
            }
            java.util.Random rnd = new java.util.Random(42);
            for (int i = 0; i < 1500; i++) {
                Compression c = rnd.nextInt(4) == 0 ? Compression.gzip().build() : Compression.NONE;
                AppendResult r = log.append(Batches.batch(c, i, 1 + rnd.nextInt(5), "k", rnd.nextInt(300)), 0);
                assertThat(r.error()).isEqualTo(Errors.NONE);
            }
            log.whenDurable(log.logEndOffset()).get(30, TimeUnit.SECONDS);
            done.set(true);
            for (Thread reader : readers) {
                reader.join();
            }
            assertThat(errors).isEmpty();
            assertThat(log.segmentCount()).isGreaterThan(5);
            assertThat(notifiedHw.get()).isEqualTo(log.logEndOffset());
        }
    }

    /**
     * With fsync-on-ack off the high watermark is the log end. A tailing consumer asks for the
     * offset after the last batch it got: that offset must never be out of range, which it is if
     * a read serves bytes the segment already holds but the log end does not cover yet.
     */
    @Test
    @Timeout(60)
    void shouldNeverServeBeyondTheReportedEndToATailingReaderWithFsyncOnAckOff() throws Exception {
        MutableClock clock = new MutableClock(0);
        LogConfig cfg = LogConfig.defaults().with(java.util.Map.of(LogConfig.FLUSH_ON_ACK, false));
        int appends = 20_000;
        try (Scheduler scheduler = new Scheduler("s");
             Log log = Log.open(tmp.resolve("t-0"), "t", 0, cfg, 0, true, clock, scheduler, null)) {
            java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
            List<Throwable> errors = java.util.Collections.synchronizedList(new ArrayList<>());
            Thread reader = new Thread(() -> {
                long next = 0;
                try {
                    while (!done.get() || next < log.logEndOffset()) {
                        LogReadResult r = log.read(next, 64 * 1024, true);
                        if (r.error() != Errors.NONE) {
                            throw new AssertionError("tailing read at " + next + ": " + r);
                        }
                        if (r.records() == null) {
                            continue;
                        }
                        for (var b : Batches.batches(r.records())) {
                            if (b.lastOffset() >= r.highWatermark()) {
                                throw new AssertionError("batch ending at " + b.lastOffset()
                                        + " served with high watermark " + r.highWatermark());
                            }
                            next = b.nextOffset();
                        }
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            });
            reader.start();
            for (int i = 0; i < appends && errors.isEmpty(); i++) {
                assertThat(log.append(Batches.batch(i, 1, "k"), 0).error()).isEqualTo(Errors.NONE);
            }
            done.set(true);
            reader.join();
            assertThat(errors).isEmpty();
        }
    }
}
