package io.brook.server.network;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Fairness between clients while the broker is saturated ({@code brook.fair.share.enable}):
 * every client id that competes gets at most an equal number of answered requests, and one that
 * asks for more is throttled for the rest of the moment, as a quota would throttle it (KIP-219:
 * the throttle time goes into its answer and its connection reads nothing more meanwhile).
 *
 * <p>Why requests: what a request costs the broker is mostly the same whatever it carries (its
 * decoding, dispatch, answer and system calls); a client that sends fifty ApiVersions, Metadata
 * and small Fetches at a time causes far more of that than a producer that sends one large batch
 * per partition, yet a broker that serves connections request by request gives both the same
 * turn. Kafka gives every connection one request at a time and leaves the rest to quotas an
 * operator sets; this is an opt-in in between (off by default until measured on a quiet
 * machine). Bytes are left to the byte-rate quotas.
 *
 * <p>The rule, per {@value #WINDOW_MS} ms window on the broker's clock: a client id competes in a
 * window when it had at least 1/{@value #COMPETING_FRACTION} of the window's requests. When a
 * window saw the broker saturated and at least two client ids competed, the next window allows
 * each client id its fair share of that window's requests (their total over the competing ids,
 * plus a quarter, never less than {@value #MIN_BUDGET}); a client id past it is throttled until
 * the window ends. A producer that sends a hundred large requests a window next to a client that
 * pipelines seven hundred small ones keeps its turns; the pipelining one is held to about 1.7
 * times the producer's requests while the broker stays saturated.
 * Throttling goes on while windows keep saturating, and stops after {@value #CALM_WINDOWS} windows
 * in a row without. A single busy client, or many clients on a broker with room, are never
 * throttled.
 *
 * <p>Saturation is measured where it hurts, on the event loops: now and then (at most every
 * {@value #PROBE_INTERVAL_NANOS} ns per loop, and only while requests arrive) a connection queues
 * a probe task on its loop; a loop that takes {@value #SATURATED_LAG_NANOS} ns or more to get to
 * it (it was busy with other connections' reads, or waited for a core) is saturated.
 *
 * <p>Thread-safe: requests are counted on whichever thread completes them; probes run on their
 * loops. A window's counts are dropped when the next one starts.
 */
final class FairShare {

    static final long WINDOW_MS = 100;
    /** A client id with at least this fraction (1/N) of a window's requests competes in it. */
    static final int COMPETING_FRACTION = 16;
    /** The fewest requests a window allows a competing client id: never throttled below 1,000 a second. */
    static final long MIN_BUDGET = 100;
    /**
     * The share is a quarter more than an equal split of the last window's requests: when every
     * competing client id was held to it, the next window allows them more, so the share follows
     * what the broker serves rather than only shrinking.
     */
    static final int HEADROOM_PERCENT = 125;
    /** Windows in a row without saturation after which throttling stops. */
    static final int CALM_WINDOWS = 5;
    /** A loop that took this long to run a queued task is saturated. */
    static final long SATURATED_LAG_NANOS = 5_000_000L;
    /** Probes of one loop are at least this far apart. */
    static final long PROBE_INTERVAL_NANOS = 2_000_000L;

    private static final long UNLIMITED = Long.MAX_VALUE;

    private final LongSupplier nowMs;
    private final Map<Executor, Probe> probes = new ConcurrentHashMap<>();
    private volatile Window current;

    /** {@code nowMs}: the broker's clock in ms (the timer's). */
    FairShare(LongSupplier nowMs) {
        this.nowMs = nowMs;
        this.current = new Window(nowMs.getAsLong(), UNLIMITED, 0);
    }

    /**
     * Counts one answered request of {@code clientId}; returns how long (ms) it is throttled
     * for it, 0 when it is within its share.
     */
    int recorded(String clientId) {
        long now = nowMs.getAsLong();
        Window w = window(now);
        long n = w.counts.computeIfAbsent(clientId == null ? "" : clientId, k -> new AtomicLong()).incrementAndGet();
        w.total.incrementAndGet();
        if (n <= w.budget) {
            return 0;
        }
        return (int) Math.max(1, w.startMs + WINDOW_MS - now);
    }

    /** The broker was seen saturated now. */
    void saturated() {
        window(nowMs.getAsLong()).saturated = true;
    }

    /** What a window allows each client id (tests). */
    long budget() {
        return window(nowMs.getAsLong()).budget;
    }

    /** The probe of the event loop {@code loop}, to {@linkplain Probe#poke poke} from that loop as requests arrive. */
    Probe probe(Executor loop) {
        return probes.computeIfAbsent(loop, l -> new Probe(this, l, System::nanoTime));
    }

    private Window window(long now) {
        Window w = current;
        if (now < w.startMs + WINDOW_MS) {
            return w;
        }
        synchronized (this) {
            w = current;
            if (now < w.startMs + WINDOW_MS) {
                return w;
            }
            long start = now - (now - w.startMs) % WINDOW_MS;
            Window next = start == w.startMs + WINDOW_MS ? after(w, start)
                    : new Window(start, UNLIMITED, 0); // a window passed without requests: nothing competes
            current = next;
            return next;
        }
    }

    /** The window that follows {@code w}, starting at {@code start}. */
    private static Window after(Window w, long start) {
        long total = w.total.get();
        int competing = 0;
        for (AtomicLong c : w.counts.values()) {
            if (c.get() * COMPETING_FRACTION >= total) {
                competing++;
            }
        }
        boolean throttling = w.budget != UNLIMITED;
        int calm = w.saturated ? 0 : w.calm + 1;
        if (competing < 2 || !(w.saturated || throttling && calm < CALM_WINDOWS)) {
            return new Window(start, UNLIMITED, 0);
        }
        return new Window(start, Math.max(MIN_BUDGET, total * HEADROOM_PERCENT / 100 / competing), calm);
    }

    private static final class Window {
        final long startMs;
        final long budget;
        /** Windows in a row without saturation before this one, while throttling. */
        final int calm;
        final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();
        final AtomicLong total = new AtomicLong();
        volatile boolean saturated;

        Window(long startMs, long budget, int calm) {
            this.startMs = startMs;
            this.budget = budget;
            this.calm = calm;
        }
    }

    /**
     * One event loop's saturation probe: {@link #poke} (on the loop, as a request arrives)
     * queues a task on the loop unless one is queued or the last ran less than
     * {@value #PROBE_INTERVAL_NANOS} ns ago; the task measures how long it waited.
     */
    static final class Probe implements Runnable {
        private final FairShare share;
        private final Executor loop;
        private final LongSupplier nanos;
        private boolean queued;
        private long queuedAt;
        private long lastRun = Long.MIN_VALUE / 2;

        Probe(FairShare share, Executor loop, LongSupplier nanos) {
            this.share = share;
            this.loop = loop;
            this.nanos = nanos;
        }

        void poke() {
            long now = nanos.getAsLong();
            if (queued || now - lastRun < PROBE_INTERVAL_NANOS) {
                return;
            }
            queued = true;
            queuedAt = now;
            try {
                loop.execute(this);
            } catch (RejectedExecutionException e) {
                queued = false; // shutting down
            }
        }

        @Override
        public void run() {
            long now = nanos.getAsLong();
            queued = false;
            lastRun = now;
            if (now - queuedAt >= SATURATED_LAG_NANOS) {
                share.saturated();
            }
        }
    }
}
