package io.brook.storage;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Holds back the force requests that appends on an event-loop thread make until the loop has
 * finished what it is doing (a round of reads and the requests in them), so that each log is
 * asked for a force once per round instead of once per append.
 *
 * <p>Why: a network thread answers everything one round of reads brought, often several produce
 * requests for the same partition (a producer keeps up to five in flight, and its answers reach
 * it together, so its next requests arrive together too). Asked after the first append, the
 * flusher forces a log that holds only that request's batch, and the others wait for a second
 * force behind it; asked at the end of the round, one force covers them all. Forces are the
 * largest CPU cost of acks=all with small batches (an fdatasync costs ~50 µs of kernel time on
 * the machines this was measured on, the writes it covers a few), and a producer's next requests
 * wait for them either way. What a held request waits for is the rest of the round's requests:
 * their decoding and appends, not a disk.
 *
 * <p>Use: a thread calls {@link #deferOn(Executor)} with its own executor (an event loop's)
 * before it appends. From then on {@link DurabilityTracker#requestFlush(boolean)} records its
 * requests here, and the first request recorded queues a release on that executor, which runs
 * after what the loop is running now: the release passes the requests to the flusher in order.
 * Nothing changes but when the flusher hears of them: no waiter is completed before its data is
 * forced, an urgent request still ends a coalescing delay, and a round that asks for no force
 * queues nothing. A thread that never defers (I/O pool, coordinators, replication, tests) asks
 * at once. A deferring thread must never wait for a durability (an event loop never does): the
 * release that would let it come runs on that thread. When the executor refuses the release
 * (shutting down), the request is made at once.
 *
 * <p>Threading: the held requests are confined to their thread; the recording and the release
 * run on it.
 */
public final class FlushRequestHold {
    private static final Logger LOG = LoggerFactory.getLogger(FlushRequestHold.class);
    private static final ThreadLocal<FlushRequestHold> CURRENT = new ThreadLocal<>();

    private final Thread owner = Thread.currentThread();
    private final ArrayList<Log> logs = new ArrayList<>();
    /** Bit i: the request for {@code logs.get(i)} was urgent. */
    private final BitSet urgent = new BitSet();
    private final Runnable release = this::release;
    private Executor executor;

    private FlushRequestHold(Executor executor) {
        this.executor = executor;
    }

    /**
     * From now on, holds this thread's force requests until a task on {@code ownExecutor}, which
     * must run its tasks on this thread, passes them on; cheap to call before every request.
     */
    public static void deferOn(Executor ownExecutor) {
        FlushRequestHold h = CURRENT.get();
        if (h == null) {
            CURRENT.set(new FlushRequestHold(ownExecutor));
        } else if (h.executor != ownExecutor && h.logs.isEmpty()) {
            h.executor = ownExecutor;
        }
    }

    /** Records a request of {@code log} if this thread defers them; false when it must be made at once. */
    static boolean held(Log log, boolean isUrgent) {
        FlushRequestHold h = CURRENT.get();
        if (h == null) {
            return false;
        }
        if (h.logs.isEmpty()) {
            try {
                h.executor.execute(h.release);
            } catch (RejectedExecutionException e) {
                return false; // the loop is shutting down: nothing will run the release
            }
        }
        if (isUrgent) {
            h.urgent.set(h.logs.size());
        }
        h.logs.add(log);
        return true;
    }

    /** How many requests this thread holds now (0 when it does not defer them). */
    static int heldCount() {
        FlushRequestHold h = CURRENT.get();
        return h == null ? 0 : h.logs.size();
    }

    private void release() {
        if (Thread.currentThread() != owner) {
            throw new IllegalStateException("force requests held by " + owner.getName() + " are released by "
                    + Thread.currentThread().getName() + ": deferOn was given an executor of another thread");
        }
        int n = logs.size();
        for (int i = 0; i < n; i++) {
            try {
                logs.get(i).durability.askFlusher(urgent.get(i));
            } catch (RuntimeException e) {
                // the flusher's request only moves a state and queues; whatever failed, the others still go
                LOG.error("asking for a force of {} failed", logs.get(i), e);
            }
        }
        logs.clear();
        urgent.clear();
    }
}
