package io.brook.server.time;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Timer} on a given {@link Clock}: a task is due once the clock reads its deadline, so
 * on a clock that a test moves by hand, deadlines pass only when the test says so.
 *
 * <p>Two ways to run what is due: {@link #runDue()} on the caller's thread (a test advances its
 * clock, then calls it), or {@link #following(Clock)}'s daemon thread, which looks at the clock
 * every millisecond (the embedded broker with a clock of its own). Due tasks run in deadline
 * order, outside the timer's lock; a task that throws is logged and does not stop the others.
 *
 * <p>Thread-safe.
 */
public final class ClockTimer implements Timer {

    private static final Logger LOG = LoggerFactory.getLogger(ClockTimer.class);
    private static final long POLL_NANOS = 1_000_000L;

    private final Clock clock;
    private final PriorityQueue<Entry> queue = new PriorityQueue<>();
    private long sequence;
    private volatile boolean closed;
    private Thread thread;

    /** A timer whose due tasks run when {@link #runDue()} is called. */
    public ClockTimer(Clock clock) {
        this.clock = clock;
    }

    /** A timer whose own daemon thread runs the due tasks, checking the clock every millisecond. */
    public static ClockTimer following(Clock clock) {
        ClockTimer timer = new ClockTimer(clock);
        Thread t = new Thread(() -> {
            while (!timer.closed) {
                timer.runDue();
                LockSupport.parkNanos(POLL_NANOS);
            }
        }, "brook-timer");
        t.setDaemon(true);
        timer.thread = t;
        t.start();
        return timer;
    }

    @Override
    public long nowMs() {
        return clock.millis();
    }

    @Override
    public Scheduled schedule(long delayMs, Runnable task) {
        Entry e;
        synchronized (queue) {
            e = new Entry(clock.millis() + Math.max(0, delayMs), sequence++, task);
            if (!closed) {
                queue.add(e);
            }
        }
        return e;
    }

    /** Runs every task whose deadline the clock has reached; returns how many ran. */
    public int runDue() {
        List<Entry> due = new ArrayList<>();
        synchronized (queue) {
            long now = clock.millis();
            while (!queue.isEmpty() && queue.peek().deadlineMs <= now) {
                Entry e = queue.poll();
                if (!e.cancelled) {
                    due.add(e);
                }
            }
        }
        int ran = 0;
        for (Entry e : due) {
            if (e.cancelled) {
                continue; // cancelled after it was taken from the queue
            }
            ran++;
            try {
                e.task.run();
            } catch (RuntimeException ex) {
                LOG.error("Timer task failed", ex);
            }
        }
        return ran;
    }

    /** Tasks scheduled and neither run nor cancelled. */
    public int pending() {
        synchronized (queue) {
            return (int) queue.stream().filter(e -> !e.cancelled).count();
        }
    }

    @Override
    public void close() {
        closed = true;
        synchronized (queue) {
            queue.clear();
        }
        Thread t = thread;
        if (t != null && t != Thread.currentThread()) {
            LockSupport.unpark(t);
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private final class Entry implements Comparable<Entry>, Scheduled {
        final long deadlineMs;
        final long seq;
        final Runnable task;
        volatile boolean cancelled;

        Entry(long deadlineMs, long seq, Runnable task) {
            this.deadlineMs = deadlineMs;
            this.seq = seq;
            this.task = task;
        }

        @Override
        public void cancel() {
            cancelled = true;
            synchronized (queue) {
                queue.remove(this);
            }
        }

        @Override
        public int compareTo(Entry o) {
            int c = Long.compare(deadlineMs, o.deadlineMs);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }
}
