package io.brook.server.api.fetch;

import io.brook.server.time.Timer;
import io.brook.server.topic.TopicPartition;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A fetch that could not yet return {@code min_bytes}: it waits until a watched partition gets
 * new data or {@code max_wait_ms} passes, then reads again and answers.
 *
 * <p>Concurrency: wake-ups ({@link #onData}) and the deadline ({@link #expire}) may arrive on any
 * thread, any number of times; checks run on the given executor (the connection's event loop, or
 * the I/O pool when inline requests are off), at most one at a time per fetch ({@code pending}
 * coalesces bursts of wake-ups into one re-check). {@code done} makes completion happen exactly
 * once, after which the fetch unregisters, cancels its timer and leaves the waiters' bound; a
 * {@link #cancel} (its connection closed) does the same without answering.
 */
final class DelayedFetch {

    /** One attempt to fill the fetch: returns true when it answered the request. */
    interface Attempt {
        boolean tryComplete(boolean deadlinePassed);
    }

    private final FetchWaiters waiters;
    private final List<TopicPartition> partitions;
    private final Executor executor;
    private final Attempt attempt;
    private final AtomicBoolean done = new AtomicBoolean();
    private final AtomicInteger pending = new AtomicInteger();
    private volatile boolean expired;
    private volatile Timer.Scheduled timeout;

    DelayedFetch(FetchWaiters waiters, List<TopicPartition> partitions, Executor executor, Attempt attempt) {
        this.waiters = waiters;
        this.partitions = partitions;
        this.executor = executor;
        this.attempt = attempt;
    }

    /** Registers on the partitions, arms the deadline, and checks once (data may have come meanwhile). */
    void start(Timer timer, long maxWaitMs) {
        for (TopicPartition tp : partitions) {
            waiters.watch(tp, this);
        }
        Timer.Scheduled t = timer.schedule(Math.max(1, maxWaitMs), this::expire);
        timeout = t;
        if (done.get()) {
            // cancelled meanwhile (the connection closed on another thread): undo what finish() missed
            t.cancel();
            for (TopicPartition tp : partitions) {
                waiters.unwatch(tp, this);
            }
            return;
        }
        onData();
    }

    void onData() {
        schedule();
    }

    void expire() {
        expired = true;
        schedule();
    }

    boolean isDone() {
        return done.get();
    }

    /** Stops waiting without answering (the connection closed): nothing of it stays registered. */
    void cancel() {
        finish();
    }

    private void schedule() {
        if (done.get()) {
            return;
        }
        if (pending.getAndIncrement() == 0) {
            try {
                executor.execute(this::check);
            } catch (RejectedExecutionException e) {
                pending.set(0); // shutting down: the connection is being closed anyway
            }
        }
    }

    private void check() {
        do {
            if (done.get()) {
                return;
            }
            // one check covers every wake-up so far; those arriving during it cause one more
            pending.set(1);
            boolean deadline = expired;
            if (attempt.tryComplete(deadline) || deadline) {
                finish();
                return;
            }
        } while (pending.decrementAndGet() > 0);
    }

    private void finish() {
        if (done.compareAndSet(false, true)) {
            Timer.Scheduled t = timeout;
            if (t != null) {
                t.cancel();
            }
            for (TopicPartition tp : partitions) {
                waiters.unwatch(tp, this);
            }
            waiters.leave(partitions.size());
        }
    }
}
