package io.brook.server.api;

import io.brook.server.time.Timer;
import io.brook.storage.Log;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Read-your-writes for the answers drawn from the high watermark: the latest offset of
 * ListOffsets and the {@code -1} ("up to the high watermark") of DeleteRecords.
 *
 * <p>With fsync-on-ack the high watermark covers only fsynced records, so just after an acks=0 or
 * acks=1 produce it can still be below the offsets that producer was told about, for as long as
 * the group commit already under way takes. Kafka's single node moves the high watermark at the
 * append, and programs (tests above all) that produce with acks=1 and then ask for the latest
 * offset expect to see their records counted. So these answers wait until the log end as of the
 * request's arrival is durable, at most {@link #MAX_WAIT_MS}, and are then computed as always:
 * the client sees its records, and readers still never see one a crash could take back. A log
 * whose high watermark is at its end (nothing unflushed, or fsync-on-ack off) adds no wait, no
 * future and no timer entry. Past the bound, the answer goes out with the high watermark as it is
 * (a disk that stalls delays these answers by that much, never longer).
 */
final class VisibleTail {

    /** The longest an answer waits for the fsync that makes the log end visible. */
    static final long MAX_WAIT_MS = 5_000;

    private VisibleTail() {
    }

    /**
     * Runs {@code answer} once each of {@code logs} has made durable what it held when this was
     * called, or after {@link #MAX_WAIT_MS}, whichever is first: at once, on the caller's thread,
     * when every high watermark is already at its log end; otherwise on {@code executor}.
     */
    static void thenAnswer(List<Log> logs, Timer timer, Executor executor, Runnable answer) {
        List<CompletableFuture<Void>> waits = null;
        for (Log log : logs) {
            long end = log.logEndOffset();
            if (log.highWatermark() < end) {
                if (waits == null) {
                    waits = new ArrayList<>();
                }
                waits.add(log.whenDurable(end));
            }
        }
        if (waits == null) {
            answer.run();
        } else {
            afterAll(waits, timer, MAX_WAIT_MS, executor, answer);
        }
    }

    /**
     * Runs {@code answer} once on {@code executor} when every future is done (normally or not) or
     * when {@code maxWaitMs} have passed on {@code timer}, whichever is first.
     */
    static void afterAll(List<CompletableFuture<Void>> waits, Timer timer, long maxWaitMs, Executor executor,
            Runnable answer) {
        AtomicBoolean answered = new AtomicBoolean();
        Runnable once = () -> {
            if (answered.compareAndSet(false, true)) {
                try {
                    executor.execute(answer);
                } catch (RejectedExecutionException e) {
                    // the connection's executor is gone: nobody is left to answer
                }
            }
        };
        Timer.Scheduled deadline = timer.schedule(maxWaitMs, once);
        CompletableFuture.allOf(waits.toArray(new CompletableFuture<?>[0])).whenComplete((ok, failure) -> {
            deadline.cancel();
            once.run();
        });
    }
}
