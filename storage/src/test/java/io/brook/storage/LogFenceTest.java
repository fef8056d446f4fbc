package io.brook.storage;

import io.brook.testkit.Await;
import io.brook.wire.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link Log#fence}: the appends of an older leader epoch are refused from the fenced end on. */
class LogFenceTest {
    @TempDir
    Path tmp;
    LogFixture fx;

    @AfterEach
    void tearDown() throws Exception {
        if (fx != null) {
            fx.close();
        }
    }

    @Test
    void shouldRefuseOlderEpochsAndAcceptTheNewOne() throws Exception {
        fx = new LogFixture(tmp, Map.of());
        Log log = fx.open();
        assertThat(log.fencedEpoch()).isEqualTo(-1);
        assertThat(log.append(Batches.batch(1, 2, "k"), 0).error()).isEqualTo(Errors.NONE);
        assertThat(log.fence(3)).isEqualTo(2);
        assertThat(log.fencedEpoch()).isEqualTo(3);

        AppendResult old = log.append(Batches.batch(1, 1, "k"), 2);
        assertThat(old.error()).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
        assertThat(log.appendAsCoordinator(Batches.batch(1, 1, "k"), 2).error())
                .isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
        assertThat(log.appendMarker(Batches.abortMarker(5L, (short) 0, 1), 2, false).error())
                .isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
        assertThat(log.logEndOffset()).isEqualTo(2);

        assertThat(log.append(Batches.batch(1, 1, "k"), 3).baseOffset()).isEqualTo(2);
        assertThat(log.append(Batches.batch(1, 1, "k"), 4).baseOffset()).isEqualTo(3);
        // the same or a lower epoch again: nothing changes, the same end comes back
        assertThat(log.fence(3)).isEqualTo(2);
        assertThat(log.fence(1)).isEqualTo(2);
        assertThat(log.fencedEpoch()).isEqualTo(3);
        assertThat(log.append(Batches.batch(1, 1, "k"), 2).error()).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
        // a higher one fences at the current end
        assertThat(log.fence(4)).isEqualTo(4);
        assertThat(log.append(Batches.batch(1, 1, "k"), 3).error()).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);

        // the follower path is not fenced
        ByteBuffer copied = Batches.batch(1, 2, "r");
        copied.putLong(0, 10L);
        ReplicaAppendResult r = log.appendReplicated(copied);
        assertThat(r.error()).isEqualTo(Errors.NONE);
        assertThat(log.logEndOffset()).isEqualTo(12);

        // the fence lives in memory only
        log = fx.reopen();
        assertThat(log.fencedEpoch()).isEqualTo(-1);
        assertThat(log.append(Batches.batch(1, 1, "k"), 0).error()).isEqualTo(Errors.NONE);
    }

    /**
     * Appends racing a fence: every append that succeeded lies below the end the fence returned,
     * and every offset below it belongs to one that succeeded (one record per batch).
     */
    @Test
    @Timeout(30)
    void shouldNeverPutAnOlderEpochsBatchAfterTheFencedEnd() throws Exception {
        fx = new LogFixture(tmp, Map.of(LogConfig.SEGMENT_BYTES, 4096));
        Log log = fx.open();
        int threads = 4;
        ConcurrentLinkedQueue<AppendResult> results = new ConcurrentLinkedQueue<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> appenders = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            Thread th = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                while (true) {
                    AppendResult r = id % 2 == 0 ? log.append(Batches.batch(1, 1, "k"), 5)
                            : log.appendAsCoordinator(Batches.batch(1, 1, "c"), 5);
                    results.add(r);
                    if (r.error() != Errors.NONE) {
                        return;
                    }
                }
            }, "appender-" + t);
            th.start();
            appenders.add(th);
        }
        start.countDown();
        Await.until("appends under way", () -> log.logEndOffset() >= 200);
        long end = log.fence(6);
        for (Thread th : appenders) {
            th.join();
        }
        long appended = 0;
        for (AppendResult r : results) {
            if (r.error() == Errors.NONE) {
                assertThat(r.lastOffset()).as("an append of the old epoch after the fence").isLessThan(end);
                appended++;
            } else {
                assertThat(r.error()).isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
            }
        }
        assertThat(appended).isEqualTo(end);
        assertThat(log.logEndOffset()).isEqualTo(end);
        assertThat(log.append(Batches.batch(1, 1, "k"), 6).baseOffset()).isEqualTo(end);
    }
}
