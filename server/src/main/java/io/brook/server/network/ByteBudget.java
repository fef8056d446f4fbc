package io.brook.server.network;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A broker-wide bound on bytes the network layer holds for its connections: request bytes read
 * but not yet answered ({@code queued.max.request.bytes}), or answer bytes written but not yet
 * taken by their clients ({@code brook.queued.max.response.bytes}).
 *
 * <p>Bytes are counted when they are already held ({@link #add}: they cannot be refused, only
 * the taking of more can stop); {@link #exceeded} tells whether the total passed the limit, and a
 * caller that stops for it {@linkplain #awaitRelease waits} to be called back (once) when bytes
 * are released.
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
     * after the next release; at once when the total is within the limit already, so that a
     * release between the caller's {@link #exceeded} and this call is not missed.
     */
    void awaitRelease(Runnable wake) {
        waiting.add(wake);
        if (used.get() <= limit) {
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
