package io.brook.server.network;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A broker-wide bound on bytes the network layer holds for its connections: request bytes read
 * but not yet answered ({@code queued.max.request.bytes}), or answer bytes written but not yet
 * taken by their clients ({@code brook.queued.max.response.bytes}).
 *
 * <p>Two ways to use it. {@link #tryAcquire} takes bytes only while the total stays within the
 * limit; a caller refused {@linkplain #awaitRelease waits} and is called back (once) when bytes
 * are released. {@link #add} counts bytes unconditionally and {@link #exceeded} tells whether the
 * total has passed the limit (for callers that cannot refuse, only stop taking more).
 *
 * <p>A limit of zero or less means unbounded: nothing is counted and nothing waits, so the
 * unbounded case costs nothing on the request path.
 *
 * <p>Thread-safe: one atomic counter; releases may come from any thread.
 */
final class ByteBudget {

    private final long limit;
    private final AtomicLong used = new AtomicLong();
    private final Queue<Runnable> waiting = new ConcurrentLinkedQueue<>();

    ByteBudget(long limit) {
        this.limit = limit;
    }

    boolean bounded() {
        return limit > 0;
    }

    long limit() {
        return limit;
    }

    long used() {
        return used.get();
    }

    /** Takes {@code n} bytes when the total stays within the limit; false (nothing taken) otherwise. */
    boolean tryAcquire(long n) {
        if (limit <= 0) {
            return true;
        }
        long now = used.addAndGet(n);
        if (now <= limit) {
            return true;
        }
        release(n);
        return false;
    }

    /** Counts {@code n} bytes (negative to uncount) whatever the total. */
    void add(long n) {
        if (limit > 0 && n != 0) {
            if (used.addAndGet(n) <= limit && n < 0) {
                wakeWaiting();
            }
        }
    }

    void release(long n) {
        add(-n);
    }

    boolean exceeded() {
        return limit > 0 && used.get() > limit;
    }

    /**
     * Calls {@code wake} (on the releasing thread: it should only hand work to its own thread)
     * after the next release; at once when the total is below the limit already, so that a
     * release between a refused {@link #tryAcquire} and this call is not missed.
     */
    void awaitRelease(Runnable wake) {
        waiting.add(wake);
        if (used.get() < limit) {
            wakeWaiting();
        }
    }

    private void wakeWaiting() {
        Runnable r;
        while (!waiting.isEmpty() && (r = waiting.poll()) != null) {
            r.run();
        }
    }
}
