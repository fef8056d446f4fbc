package io.brook.coordinator.runtime;

import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

import org.jctools.queues.MessagePassingQueue;
import org.jctools.queues.MpscUnboundedArrayQueue;

/**
 * The single thread that owns a coordinator's state, and its timers.
 *
 * <p>Threading: {@link #execute} may be called from any thread (it offers to a JCTools MPSC queue
 * and unparks the owner). Everything else — {@link #schedule}, {@link #cancel}, {@link #runPending}
 * and every task and timer body — runs on the owner thread only. The owner is either the thread
 * started by {@link #start} or, in tests, the test thread calling {@link #runPending} itself
 * (never both). A task or timer that throws is handed to the error handler; the loop goes on.
 *
 * <p>Timers: a priority queue ordered by (deadline, insertion sequence), deadlines read from the
 * injected {@link Clock}. A timer has a key; scheduling a key again replaces the earlier timer, which
 * is how a member's session timer is re-armed by each heartbeat. Nothing here sleeps on real time
 * in tests: a test advances its clock and calls {@link #runPending}.
 */
public final class EventLoop {

    private static final long MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private static final class Timer implements Comparable<Timer> {
        final String key;
        final long deadlineMs;
        final long seq;
        final Runnable task;
        boolean cancelled;

        Timer(String key, long deadlineMs, long seq, Runnable task) {
            this.key = key;
            this.deadlineMs = deadlineMs;
            this.seq = seq;
            this.task = task;
        }

        @Override
        public int compareTo(Timer o) {
            int c = Long.compare(deadlineMs, o.deadlineMs);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }

    private final Clock clock;
    private final MessagePassingQueue<Runnable> queue = new MpscUnboundedArrayQueue<>(256);
    private final PriorityQueue<Timer> timers = new PriorityQueue<>();
    private final Map<String, Timer> timersByKey = new HashMap<>();
    private final Consumer<Throwable> errorHandler;
    private static final int PURGE_THRESHOLD = 1024;
    private long seq;
    private int cancelledInHeap;
    private volatile Thread thread;
    private volatile boolean running;
    private volatile boolean stopped;

    /** @param errorHandler receives what a task or timer threw, on the owner thread */
    public EventLoop(Clock clock, Consumer<Throwable> errorHandler) {
        this.clock = clock;
        this.errorHandler = errorHandler;
    }

    /** The injected clock's time in milliseconds. */
    public long now() {
        return clock.millis();
    }

    /**
     * Hands a task to the owner thread. Any thread. After {@link #stop} there is no owner any more:
     * the task then runs at once on the caller, under this loop's monitor so that such late tasks
     * (completions of log appends still in flight at shutdown) never run concurrently.
     */
    public void execute(Runnable task) {
        if (stopped) {
            synchronized (this) {
                runPending();
                run(task);
            }
            return;
        }
        queue.offer(task);
        Thread t = thread;
        if (t != null) LockSupport.unpark(t);
        if (stopped) {
            // Raced with stop(): make sure the task is not stranded in the queue.
            synchronized (this) {
                runPending();
            }
        }
    }

    /**
     * Runs {@code task} on the owner thread once {@code delayMs} have passed on the clock, replacing
     * the timer scheduled earlier under the same key. Owner thread only; ignored after {@link #stop}.
     */
    public void schedule(String key, long delayMs, Runnable task) {
        if (stopped) return; // no timers once the owner is gone
        cancel(key);
        Timer t = new Timer(key, now() + Math.max(0, delayMs), seq++, task);
        timers.add(t);
        timersByKey.put(key, t);
    }

    /** Drops the timer with this key, if any. Owner thread only. */
    public void cancel(String key) {
        Timer t = timersByKey.remove(key);
        if (t != null) {
            t.cancelled = true;
            // Cancelled timers stay in the heap until they surface (a heartbeat re-arms its member's
            // timer every few seconds); sweep them when they outnumber the live ones.
            if (++cancelledInHeap > PURGE_THRESHOLD && cancelledInHeap > timers.size() / 2) {
                timers.removeIf(x -> x.cancelled);
                cancelledInHeap = 0;
            }
        }
    }

    /** Timers in the heap, cancelled ones included (tests). */
    int heapSize() {
        return timers.size();
    }

    boolean isScheduled(String key) {
        return timersByKey.containsKey(key);
    }

    /** Deadline of the timer with this key, or -1. */
    public long deadline(String key) {
        Timer t = timersByKey.get(key);
        return t == null ? -1 : t.deadlineMs;
    }

    /**
     * Runs expired timers and queued tasks until there are none left. A timer whose deadline has
     * already passed runs before the next queued task, so a task handled after the clock moved
     * beyond a deadline sees its effect (a heartbeat that arrives after its session expired finds
     * the member gone), whether time is real or virtual. A timer due exactly now runs once the
     * queue is empty, so that requests that arrived together are handled together before it (a
     * rebalance with no initial delay still takes every member that joined at the same moment).
     *
     * @return the number of tasks and timers run
     */
    public int runPending() {
        int n = 0;
        while (true) {
            if (runTimer(now() - 1)) {
                n++;
                continue;
            }
            Runnable r = queue.poll();
            if (r != null) {
                run(r);
                n++;
                continue;
            }
            if (runTimer(now())) {
                n++;
                continue;
            }
            return n;
        }
    }

    /** Runs (or discards, when cancelled) the first timer if it is due at {@code until}; true if there was one. */
    private boolean runTimer(long until) {
        Timer t = timers.peek();
        if (t == null || !(t.cancelled || t.deadlineMs <= until)) {
            return false;
        }
        timers.poll();
        if (t.cancelled) {
            cancelledInHeap--;
            return true;
        }
        timersByKey.remove(t.key);
        run(t.task);
        return true;
    }

    private void run(Runnable r) {
        try {
            r.run();
        } catch (Throwable e) {
            errorHandler.accept(e);
        }
    }

    /** Starts the owner thread (a daemon); from then on only it runs tasks and timers. */
    public void start(String threadName) {
        running = true;
        Thread t = new Thread(this::loop, threadName);
        t.setDaemon(true);
        thread = t;
        t.start();
    }

    private void loop() {
        while (running) {
            runPending();
            Timer next = timers.peek();
            long parkNanos = MAX_PARK_NANOS;
            if (next != null) {
                parkNanos = Math.min(parkNanos, TimeUnit.MILLISECONDS.toNanos(Math.max(0, next.deadlineMs - now())));
            }
            if (queue.isEmpty() && parkNanos > 0) LockSupport.parkNanos(this, parkNanos);
        }
        runPending();
    }

    /** Stops the owner thread after it ran what was queued; waits for it. */
    public void stop() throws InterruptedException {
        running = false;
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
            t.join();
        }
        synchronized (this) {
            stopped = true;
            timers.clear();
            timersByKey.clear();
            cancelledInHeap = 0;
            runPending();
        }
    }

    boolean inLoopThread() {
        return Thread.currentThread() == thread;
    }
}
