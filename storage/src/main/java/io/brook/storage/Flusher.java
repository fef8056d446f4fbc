package io.brook.storage;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Iterator;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The group-commit threads: they force the files of every log that asked for it and then
 * complete that log's durability waiters. Appenders never wait for a disk: an append marks its
 * log dirty ({@link #request}) and returns; a flusher thread captures the log end, calls
 * {@code force} once and thereby makes every append before the capture durable at once. While a
 * log is being forced, appends to it pile up and are covered by its next round, so the number of
 * fsyncs adapts to the load instead of growing with it.
 *
 * <p>Why several threads: one fsync of a small file takes ~0.2 ms on a virtual disk, and forcing N
 * partitions one after another makes every acks=all request that touches them wait N times that.
 * Forced concurrently, the file system merges them into fewer journal commits (measured on ext4:
 * 8 files forced by 8 threads complete a round 2.5× sooner than by one thread; 1,000 files by 16
 * threads 4× sooner). Threads spend their time blocked in the kernel, not on a CPU.
 *
 * <h2>Coalescing ({@code brook.log.flush.coalesce.ms})</h2>
 * A request is <em>urgent</em> when somebody waits for the force (a durability waiter: an
 * acks=all answer, a transaction marker, a coordinator's write, a follower's fetch), or when
 * {@code flush.messages}, {@code flush.ms} or switching fsync-on-ack back on asks for it; it is
 * <em>lazy</em> when only the high watermark waits for it (an acks=0/1 append). Forcing after
 * every lazy append costs one fsync per batch per partition under load, for data whose only
 * reader is a consumer; so when lazy appends overtook a force (they came while it ran: the log
 * is under load), the next force is not queued when that force ends but <em>delayed</em> until
 * {@code coalesce.ms} after its end, and every append until then rides on that one force. A
 * lazy request to an idle log is queued at once: after a force that no append overtook, or after
 * a quiet moment, nothing waits (a client that sends a record only once it has seen the last
 * one, as Kafka's end-to-end latency tool does, is never delayed); an urgent request ends a delay
 * at once, so acks=all never waits for it. With {@code coalesce.ms=0} every request is urgent.
 * No thread is parked for a delay: delayed logs sit in one list that a single timer thread
 * ({@link Timer}, owned by this flusher: the storage {@link Scheduler}'s thread runs retention
 * and checkpoints, which could hold a due force back for long) looks at when the earliest of them
 * is due, queueing the ones whose time has come.
 *
 * <h2>Nobody reading at the end ({@code brook.log.flush.coalesce.unread.ms})</h2>
 * The delay only makes acks=0/1 data visible to consumers; while no consumer reads at the log's
 * end, nobody is there to see it sooner, so the delay is the longer {@code coalesce.unread.ms}
 * instead, and every append of that time rides on one force. A read that finds nothing new at
 * the high watermark ({@link #readerAtEnd}, a fetch about to wait for data) marks the log as read
 * at its end for the next {@code coalesce.unread.ms}, during which its delays are the short
 * ones, and cuts a long delay in progress back to {@code coalesce.ms} after its force (or ends
 * it, when that time is over). So a tailing consumer waits no longer than with the short delay
 * alone (each of its fetches that finds nothing new marks the log), while a log only written to
 * is forced once every {@code coalesce.unread.ms} instead of every {@code coalesce.ms}. The
 * price is a longer time in which a crash loses acknowledged acks=0/1 data nobody has seen
 * (Kafka, which never forces, has no bound at all); consumers still never see data a crash could
 * take back. Without a longer {@code coalesce.unread.ms} it changes nothing.
 *
 * <p>Threading: {@link #request} is called by any thread. Each log has a small state machine
 * ({@code DurabilityTracker.flushState}) so that it is queued at most once and forced by at most
 * one thread at a time, and no thread ever waits for another's force of the same log. Without
 * coalescing every request is urgent, and DELAYED and FLUSHING_AGAIN_LAZY never occur:
 * <pre>
 *                                   taken by
 *   IDLE --request--> QUEUED -------a thread-------> FLUSHING --done--> IDLE
 *                      ^  ^                           |    |
 *       urgent request |  | done: queued again        |    | lazy request
 *       or due         |  | (tail) when other    urgent    v
 *   DELAYED -----------+  | logs are queued     request  FLUSHING_AGAIN_LAZY
 *      ^                  |                          |    |          |
 *      |                  |                          v    v urgent   |
 *      |                  +------------------ FLUSHING_AGAIN request  |
 *      |                    done, no other log queued: FLUSHING       |
 *      +----------------------- done (as FLUSHING_AGAIN if that force -+
 *                                made nothing durable or took longer)
 * </pre>
 * <table>
 *   <caption>Who moves a log out of each state</caption>
 *   <tr><th>state</th><th>means</th><th>left by</th></tr>
 *   <tr><td>IDLE</td><td>nothing to force</td><td>any request: QUEUED</td></tr>
 *   <tr><td>DELAYED</td><td>a lazy force waits for its time (the timer holds an entry)</td><td>an
 *       urgent request, or the timer once due: QUEUED (the other one then finds nothing to do)</td></tr>
 *   <tr><td>QUEUED</td><td>in the queue, once</td><td>the thread that takes it: FLUSHING</td></tr>
 *   <tr><td>FLUSHING</td><td>one thread forces it</td><td>its end: IDLE; a lazy request:
 *       FLUSHING_AGAIN_LAZY; an urgent one: FLUSHING_AGAIN</td></tr>
 *   <tr><td>FLUSHING_AGAIN_LAZY</td><td>more to force, nobody waits</td><td>an urgent request:
 *       FLUSHING_AGAIN; the force's end: DELAYED until {@code coalesce.ms} after it (as
 *       FLUSHING_AGAIN if that force made nothing durable or took longer)</td></tr>
 *   <tr><td>FLUSHING_AGAIN</td><td>more to force, somebody waits</td><td>the force's end: forced
 *       again at once by the same thread, or QUEUED (tail) when other logs are queued</td></tr>
 * </table>
 * An append that lands while its log is being forced may miss the captured end, so it moves the
 * log to FLUSHING_AGAIN (FLUSHING_AGAIN_LAZY when nobody waits) and the thread that finishes the
 * force queues the log once more, or delays it. Each delay carries a number of its own in the
 * state value ({@link #delayedState}), so the timer's entry for a delay that an urgent request
 * already ended does nothing, even when the log is delayed again meanwhile. Close releases the
 * delayed logs: they are forced with the queued ones.
 *
 * <p>Failures: whatever a flush throws, {@link Error}s included, takes that log offline (its
 * waiters fail, see {@link DurabilityTracker}) and the thread goes on with the other logs: a
 * dead flusher thread would leave every acks=all answer it owed waiting forever. A delayed
 * force of a log that failed or was closed meanwhile is queued and then does nothing.
 */
final class Flusher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Flusher.class);

    /** Default number of flusher threads ({@code brook.log.flush.threads}). */
    static final int DEFAULT_THREADS = 8;
    /** Default of {@code brook.log.flush.coalesce.ms}. */
    static final long DEFAULT_COALESCE_MS = 2;
    /** Default of {@code brook.log.flush.coalesce.unread.ms}. */
    static final long DEFAULT_UNREAD_COALESCE_MS = 20;
    /** Largest {@code brook.log.flush.coalesce.ms} and {@code brook.log.flush.coalesce.unread.ms}. */
    static final long MAX_COALESCE_MS = 1000;

    static final int IDLE = 0;
    static final int QUEUED = 1;
    static final int FLUSHING = 2;
    static final int FLUSHING_AGAIN = 3;
    static final int FLUSHING_AGAIN_LAZY = 4;
    /** The low bits of a delayed log's state; the bits above them number the delay. */
    static final int DELAYED = 5;
    private static final int STATE_BITS = 3;
    private static final long NO_TICK = Long.MAX_VALUE;
    /** The end time of a force that made nothing durable (it starts no delay). */
    private static final long NOTHING_MADE_DURABLE = Long.MIN_VALUE;

    /** Runs a task once after a delay, never on the caller's thread; may refuse once closed. */
    @FunctionalInterface
    interface Timer {
        void schedule(Runnable task, long delayNanos);
    }

    /**
     * One delay of one log: due at {@code dueNanos} while the log is read at its end, else at
     * {@code unreadDueNanos}, if the log is still in {@code state} then.
     */
    private record DelayedForce(Log log, int state, long dueNanos, long unreadDueNanos) {
        long due(boolean read) {
            return read ? dueNanos : unreadDueNanos;
        }
    }

    private final LinkedBlockingQueue<Object> dirty = new LinkedBlockingQueue<>();
    private final Object stopToken = new Object();
    private final Thread[] threads;
    private final long coalesceNanos;
    /** The delay while nobody reads at the log's end: at least {@link #coalesceNanos}. */
    private final long unreadCoalesceNanos;
    private final Timer timer;
    /** The timer's thread when this flusher made it (closed with it), else null. */
    private final ScheduledThreadPoolExecutor ownTimer;
    private final LongSupplier nanoTime;
    private final ConcurrentLinkedQueue<DelayedForce> delayed = new ConcurrentLinkedQueue<>();
    /** When the earliest pending look at {@link #delayed} is due, or {@link #NO_TICK}. */
    private final AtomicLong tickDue = new AtomicLong(NO_TICK);
    private final AtomicInteger delays = new AtomicInteger();
    private volatile boolean running = true;
    private volatile FlushObserver observer = FlushObserver.NONE;

    /** One thread, no coalescing. */
    Flusher(String name) {
        this(name, 1);
    }

    /** No coalescing: every request is queued at once. */
    Flusher(String name, int threads) {
        this(name, threads, 0);
    }

    /** Coalescing lazy requests for {@code coalesceMs} (0: none) on a timer thread of its own. */
    Flusher(String name, int threads, long coalesceMs) {
        this(name, threads, coalesceMs, coalesceMs);
    }

    /**
     * Coalescing lazy requests for {@code coalesceMs} (0: none), or {@code unreadCoalesceMs}
     * while nobody reads at the log's end, on a timer thread of its own.
     */
    Flusher(String name, int threads, long coalesceMs, long unreadCoalesceMs) {
        this(name, threads, coalesceMs, unreadCoalesceMs, coalesceMs > 0 ? timerThread(name + "-timer") : null, null,
                System::nanoTime);
    }

    /** With the test's {@code timer} and time source (nanoseconds) behind coalescing. */
    Flusher(String name, int threads, long coalesceMs, Timer timer, LongSupplier nanoTime) {
        this(name, threads, coalesceMs, coalesceMs, timer, nanoTime);
    }

    /** With the test's {@code timer} and time source, and a longer delay while nobody reads at the end. */
    Flusher(String name, int threads, long coalesceMs, long unreadCoalesceMs, Timer timer, LongSupplier nanoTime) {
        this(name, threads, coalesceMs, unreadCoalesceMs, null, timer, nanoTime);
    }

    private Flusher(String name, int threads, long coalesceMs, long unreadCoalesceMs,
            ScheduledThreadPoolExecutor ownTimer, Timer timer, LongSupplier nanoTime) {
        if (threads < 1) {
            throw new IllegalArgumentException("at least one flusher thread is needed, not " + threads);
        }
        this.coalesceNanos = TimeUnit.MILLISECONDS.toNanos(checkCoalesceMs(coalesceMs));
        this.unreadCoalesceNanos = Math.max(coalesceNanos,
                TimeUnit.MILLISECONDS.toNanos(checkCoalesceMs(unreadCoalesceMs)));
        this.ownTimer = ownTimer;
        this.timer = ownTimer == null ? timer : (task, delayNanos) -> {
            // the task cannot fail (it only moves logs to the queue): the future has nothing to report
            ScheduledFuture<?> unused = ownTimer.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
        };
        this.nanoTime = nanoTime;
        this.threads = new Thread[threads];
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(this::run, threads == 1 ? name : name + "-" + i);
            t.setDaemon(true);
            this.threads[i] = t;
            t.start();
        }
    }

    /** Returns {@code ms} if it is a valid {@code brook.log.flush.coalesce.ms}, else throws. */
    static long checkCoalesceMs(long ms) {
        return checkCoalesceMs("brook.log.flush.coalesce.ms", ms);
    }

    /** Returns {@code ms} if it is a valid value of the coalescing time {@code name}, else throws. */
    static long checkCoalesceMs(String name, long ms) {
        if (ms < 0 || ms > MAX_COALESCE_MS) {
            throw new IllegalArgumentException(name + " must be 0.." + MAX_COALESCE_MS + ", not " + ms);
        }
        return ms;
    }

    private static ScheduledThreadPoolExecutor timerThread(String name) {
        return new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
    }

    /** Who is told of each round that made data durable (metrics); {@link FlushObserver#NONE} by default. */
    void observer(FlushObserver o) {
        this.observer = o == null ? FlushObserver.NONE : o;
    }

    /** Asks for a force of {@code log}: at once if {@code urgent}, else perhaps delayed (see the class comment). */
    void request(Log log, boolean urgent) {
        AtomicInteger state = log.durability.flushState;
        boolean lazy = !urgent && coalesceNanos > 0;
        while (true) {
            int s = state.get();
            int next;
            if (s == IDLE) {
                next = QUEUED;
            } else if (s == FLUSHING) {
                next = lazy ? FLUSHING_AGAIN_LAZY : FLUSHING_AGAIN;
            } else if (lazy || s == QUEUED || s == FLUSHING_AGAIN) {
                return; // a force that starts later covers this append
            } else {
                // urgent, and the log is delayed or will be after its force: no more waiting
                next = s == FLUSHING_AGAIN_LAZY ? FLUSHING_AGAIN : QUEUED;
            }
            if (state.compareAndSet(s, next)) {
                if (next == QUEUED) {
                    dirty.add(log);
                }
                return;
            }
        }
    }

    /**
     * A read of {@code log} found nothing new at its high watermark (a fetch about to wait): for
     * the next {@code coalesce.unread.ms} its delays are the short ones, and a delay in progress
     * is cut back to the short one (see the class comment). Any thread; cheap.
     */
    void readerAtEnd(Log log) {
        if (unreadCoalesceNanos == coalesceNanos) {
            return; // every delay is the short one
        }
        DurabilityTracker d = log.durability;
        long now = nanoTime.getAsLong();
        d.readAtEndNanos = now; // before the state is read: see delay()
        if (isDelayed(d.flushState.get())) {
            // the timer now finds the log read at its end and takes the short due time
            long due = d.delayDueNanos;
            lookAt(due - now < 0 ? now : due, now);
        }
    }

    /** Whether a reader was at {@code log}'s end within the last {@code coalesce.unread.ms}. */
    private boolean readAtEnd(Log log, long now) {
        long t = log.durability.readAtEndNanos;
        return unreadCoalesceNanos == coalesceNanos || (t != DurabilityTracker.NEVER && now - t <= unreadCoalesceNanos);
    }

    /**
     * Moves {@code log} from {@link #FLUSHING_AGAIN_LAZY} to a new delay, due the coalescing time
     * after {@code forceEndNanos} (the longer one while nobody reads at its end), and enters it
     * in the timer's list. False when that time is over already, or when an urgent request moved
     * the log meanwhile (the caller looks again).
     */
    private boolean delay(Log log, long forceEndNanos) {
        long now = nanoTime.getAsLong();
        long due = forceEndNanos + coalesceNanos;
        long unreadDue = forceEndNanos + unreadCoalesceNanos;
        if ((readAtEnd(log, now) ? due : unreadDue) - now <= 0) {
            return false;
        }
        int d = delayedState(delays.incrementAndGet());
        log.durability.delayDueNanos = due; // before the state: readerAtEnd reads it after the state
        if (!log.durability.flushState.compareAndSet(FLUSHING_AGAIN_LAZY, d)) {
            return false;
        }
        // Read again now that the delay is published: a reader that came meanwhile either found
        // the log delayed (and asks the timer to look itself) or is seen here. A delay that
        // starts while the log is read at its end stays the short one.
        long first = readAtEnd(log, now) ? due : unreadDue;
        delayed.add(new DelayedForce(log, d, due, first));
        lookAt(first, now);
        return true;
    }

    /** The state value of the delay numbered {@code n} (wrapping: a delay lives at most a second). */
    static int delayedState(int n) {
        return DELAYED | ((n & (Integer.MAX_VALUE >>> STATE_BITS)) << STATE_BITS);
    }

    static boolean isDelayed(int state) {
        return (state & ((1 << STATE_BITS) - 1)) == DELAYED;
    }

    /** Makes sure the timer looks at the delayed logs by {@code due}. */
    private void lookAt(long due, long now) {
        while (true) {
            long pending = tickDue.get();
            if (pending != NO_TICK && pending - due <= 0) {
                return; // an earlier look is set; it sets the next one
            }
            if (tickDue.compareAndSet(pending, due)) {
                try {
                    timer.schedule(this::tick, Math.max(0, due - now));
                } catch (RejectedExecutionException e) {
                    releaseDelayed(); // closing: no more waiting
                }
                return;
            }
        }
    }

    /** On the timer: queues the delayed logs that are due, drops the delays that ended, sets the next look. */
    private void tick() {
        tickDue.set(NO_TICK);
        long now = nanoTime.getAsLong();
        long next = 0;
        boolean more = false;
        for (Iterator<DelayedForce> it = delayed.iterator(); it.hasNext(); ) {
            DelayedForce f = it.next();
            AtomicInteger state = f.log().durability.flushState;
            if (state.get() != f.state()) {
                it.remove(); // queued by an urgent request (and perhaps forced) since
                continue;
            }
            long due = f.due(readAtEnd(f.log(), now));
            if (due - now <= 0) {
                it.remove();
                if (state.compareAndSet(f.state(), QUEUED)) {
                    dirty.add(f.log());
                }
            } else if (!more || due - next < 0) {
                next = due;
                more = true;
            }
        }
        if (more) {
            lookAt(next, now);
        }
    }

    /** Queues every delayed log at once (closing). */
    private void releaseDelayed() {
        DelayedForce f;
        while ((f = delayed.poll()) != null) {
            if (f.log().durability.flushState.compareAndSet(f.state(), QUEUED)) {
                dirty.add(f.log());
            }
        }
    }

    private void flush(Log log) {
        AtomicInteger state = log.durability.flushState;
        while (true) {
            state.set(FLUSHING); // only the thread that took the log moves it out of QUEUED
            long forceEnd = NOTHING_MADE_DURABLE;
            try {
                long before = log.durability.durable().offset();
                long t0 = nanoTime.getAsLong();
                log.flush();
                long covered = log.durability.durable().offset() - before;
                if (covered > 0) {
                    forceEnd = nanoTime.getAsLong();
                    observer.forced(forceEnd - t0, covered);
                }
            } catch (RuntimeException | Error e) {
                // The flush takes its log offline itself; this thread must live on for the others.
                LOG.error("flush of {} failed", log, e);
            }
            if (state.compareAndSet(FLUSHING, IDLE)) {
                return;
            }
            // Appends arrived during the force: the log is under load. If nobody waits for them,
            // their force waits for the coalescing time after this one's end (unless an urgent
            // request comes first). Only here does a delay start: after a force that no append
            // overtook the log is idle, and its next append is forced at once.
            if (forceEnd != NOTHING_MADE_DURABLE && state.get() == FLUSHING_AGAIN_LAZY && delay(log, forceEnd)) {
                return;
            }
            // FLUSHING_AGAIN: force again at once unless other logs are waiting, in which case
            // this one goes behind them (no log monopolises a thread).
            if (!dirty.isEmpty()) {
                state.set(QUEUED);
                dirty.add(log);
                return;
            }
        }
    }

    private void run() {
        while (true) {
            Object next;
            try {
                next = dirty.take();
            } catch (InterruptedException e) {
                if (!running) {
                    return;
                }
                continue;
            }
            if (next == stopToken) {
                return;
            }
            flush((Log) next);
        }
    }

    /** Stops the threads after they forced every log queued or delayed so far. */
    @Override
    public void close() {
        running = false;
        if (ownTimer != null) {
            ownTimer.shutdownNow();
            try {
                ownTimer.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        releaseDelayed();
        for (int i = 0; i < threads.length; i++) {
            dirty.add(stopToken);
        }
        for (Thread t : threads) {
            try {
                t.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        Object next;
        while ((next = dirty.poll()) != null) {
            if (next instanceof Log log) {
                log.durability.flushState.set(IDLE);
                log.flush();
            }
        }
    }
}
