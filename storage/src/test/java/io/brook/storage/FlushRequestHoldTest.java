package io.brook.storage;

import io.brook.testkit.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A thread that defers its force requests passes them on once per round, from the task it
 * queued on its own executor. Each test defers on a thread of its own (the deferral is the
 * thread's for good), and plays its event loop: {@link #loop} holds the tasks it queued.
 */
@Timeout(30)
class FlushRequestHoldTest {
    @TempDir
    Path tmp;

    private final List<Runnable> loop = new ArrayList<>();
    private ExecutorService deferring;
    private ExecutorService other;
    private Scheduler scheduler;

    @BeforeEach
    void setUp() {
        deferring = Executors.newSingleThreadExecutor(r -> new Thread(r, "deferring"));
        other = Executors.newSingleThreadExecutor(r -> new Thread(r, "other"));
        scheduler = new Scheduler("s");
    }

    @AfterEach
    void tearDown() {
        deferring.shutdownNow();
        other.shutdownNow();
        scheduler.close();
    }

    @Test
    void shouldCoverEveryAppendOfARoundWithOneForce() throws Exception {
        try (Flusher flusher = new Flusher("flusher", 2, 2); Log log = open("t-0", LogConfig.defaults(), flusher)) {
            long forces = log.flushCount();
            List<CompletableFuture<Void>> durable = onDeferringThread(() -> {
                FlushRequestHold.deferOn(loop::add);
                List<CompletableFuture<Void>> waits = new ArrayList<>();
                for (int i = 0; i < 5; i++) {
                    log.append(Batches.batch(0, 1, "k"), 0);
                    waits.add(log.whenDurable(i + 1));
                }
                // nothing was asked of the flusher yet: the log is idle, not queued, and nothing is durable
                assertThat(log.durability.flushState.get()).isEqualTo(Flusher.IDLE);
                assertThat(FlushRequestHold.heldCount()).isEqualTo(10); // a lazy request per append, an urgent per wait
                assertThat(loop).as("one release queued for the round").hasSize(1);
                assertThat(waits).noneMatch(CompletableFuture::isDone);
                runLoop();
                assertThat(FlushRequestHold.heldCount()).isZero();
                return waits;
            });
            CompletableFuture.allOf(durable.toArray(CompletableFuture[]::new)).get(20, TimeUnit.SECONDS);
            assertThat(log.durableOffset()).isEqualTo(5);
            assertThat(log.flushCount() - forces).isEqualTo(1);
        }
    }

    @Test
    void shouldQueueAReleaseForEachRoundThatAsksAndNothingForOneThatDoesNot() throws Exception {
        LogConfig noForce = LogConfig.defaults().with(Map.of(LogConfig.FLUSH_ON_ACK, "false"));
        try (Flusher flusher = new Flusher("flusher", 1); Log log = open("t-0", LogConfig.defaults(), flusher);
             Log lazy = open("t-1", noForce, flusher)) {
            onDeferringThread(() -> {
                FlushRequestHold.deferOn(loop::add);
                lazy.append(Batches.batch(0, 1, "k"), 0);
                assertThat(loop).as("an append that asks for no force").isEmpty();
                for (long next = 1; next <= 2; next++) {
                    log.append(Batches.batch(0, 1, "k"), 0);
                    CompletableFuture<Void> durable = log.whenDurable(next);
                    assertThat(loop).hasSize(1);
                    runLoop();
                    durable.get(20, TimeUnit.SECONDS);
                }
                return null;
            });
            assertThat(log.durableOffset()).isEqualTo(2);
        }
    }

    @Test
    void shouldAskAtOnceOnAThreadThatDoesNotDefer() throws Exception {
        try (Flusher flusher = new Flusher("flusher", 1); Log a = open("t-0", LogConfig.defaults(), flusher);
             Log b = open("t-1", LogConfig.defaults(), flusher)) {
            onDeferringThread(() -> {
                FlushRequestHold.deferOn(loop::add);
                a.append(Batches.batch(0, 1, "k"), 0);
                CompletableFuture<Void> held = a.whenDurable(1);
                // another thread's append is forced while this one's request waits for its round
                other.submit(() -> {
                    b.append(Batches.batch(0, 1, "k"), 0);
                    return b.whenDurable(1);
                }).get(20, TimeUnit.SECONDS).get(20, TimeUnit.SECONDS);
                assertThat(held).isNotDone();
                runLoop();
                held.get(20, TimeUnit.SECONDS);
                return null;
            });
        }
    }

    @Test
    void shouldAskAtOnceWhenTheExecutorRefusesTheRelease() throws Exception {
        try (Flusher flusher = new Flusher("flusher", 1); Log log = open("t-0", LogConfig.defaults(), flusher)) {
            onDeferringThread(() -> {
                FlushRequestHold.deferOn(task -> {
                    throw new RejectedExecutionException("shutting down");
                });
                log.append(Batches.batch(0, 1, "k"), 0);
                log.whenDurable(1).get(20, TimeUnit.SECONDS);
                assertThat(FlushRequestHold.heldCount()).isZero();
                return null;
            });
        }
    }

    @Test
    void shouldRefuseAReleaseOnAnotherThreadAndKeepTheRequests() throws Exception {
        try (Flusher flusher = new Flusher("flusher", 1); Log log = open("t-0", LogConfig.defaults(), flusher)) {
            onDeferringThread(() -> {
                FlushRequestHold.deferOn(loop::add);
                log.append(Batches.batch(0, 1, "k"), 0);
                CompletableFuture<Void> durable = log.whenDurable(1);
                Runnable release = loop.remove(0);
                assertThatThrownBy(() -> other.submit(release).get(20, TimeUnit.SECONDS))
                        .hasCauseInstanceOf(IllegalStateException.class);
                assertThat(FlushRequestHold.heldCount()).isEqualTo(2);
                assertThat(durable).isNotDone();
                release.run();
                durable.get(20, TimeUnit.SECONDS);
                return null;
            });
        }
    }

    /** Runs {@code body} on the thread that defers (it throws what the body threw, wrapped). */
    private <T> T onDeferringThread(Callable<T> body) throws Exception {
        return deferring.submit(body).get(25, TimeUnit.SECONDS);
    }

    /** Runs the tasks queued on the test's "event loop", on the calling (deferring) thread. */
    private void runLoop() {
        while (!loop.isEmpty()) {
            loop.remove(0).run();
        }
    }

    private Log open(String dir, LogConfig config, Flusher flusher) throws Exception {
        return Log.open(tmp.resolve(dir), "t", 0, config, 0, true, new MutableClock(0), scheduler, flusher);
    }
}
