package io.brook.server.network;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
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
 * operator sets; Brook does this by default (RELIABILITY.md, the overload scenario: the measuring
 * producer keeps 83-95 % of its throughput with it, 57-71 % without). Bytes are left to the
 * byte-rate quotas.
 *
 * <p>The rule, per {@value #WINDOW_MS} ms window on the broker's clock. A client id <em>presses</em>
 * in a window when at least 1/{@value #PRESSING_FRACTION} of its requests arrived while an earlier
 * request of the same connection was still unanswered (it pipelines: it has more to ask than the
 * broker has answered), and <em>competes</em> when it presses and had at least
 * 1/{@value #COMPETING_FRACTION} of the window's requests of pressing client ids. A client that waits for each answer
 * before it asks again (a tailing consumer, a producer of single requests) is light: however many
 * requests it sends, it is never throttled and never the reason another is, since a broker that
 * answers it sooner gets no more work from it. When a window saw the broker saturated and at
 * least two client ids competed, the next window allows each competing id its fair share of their
 * requests in that window (their total over their number, plus a quarter, never less than
 * {@value #MIN_BUDGET}); a competing id past it is throttled until the window ends. A producer
 * that keeps a few requests in flight next to a client that pipelines seven times as many small
 * ones keeps its turns; the pipelining one is held to about 1.7 times the producer's requests
 * while the broker stays saturated. Throttling goes on while windows keep saturating, and stops
 * after {@value #CALM_WINDOWS} windows in a row without. A single busy client, a busy client next
 * to light ones, or many clients on a broker with room, are never throttled.
 *
 * <p>Why pressing: an equal share among every client that sent requests would hold a busy
 * client to a share sized by a light one that does not want more (900 requests of a producer
 * next to 100 of a tailing consumer: the producer held to 625), and while the machine stayed
 * saturated for a reason of its own, each window's smaller total would shrink the next share
 * further. Only a client that itself has requests waiting is starved by another's, so only such
 * clients divide the broker between them.
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
    /** A pressing client id with at least this fraction (1/N) of a window's requests competes in it. */
    static final int COMPETING_FRACTION = 16;
    /** A client id presses when at least this fraction (1/N) of its requests arrived behind an unanswered one. */
    static final int PRESSING_FRACTION = 4;
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
        this.current = new Window(nowMs.getAsLong(), UNLIMITED, 0, Set.of());
    }

    /**
     * Counts one answered request of {@code clientId}, {@code pipelined} when it arrived while an
     * earlier request of its connection was unanswered; returns how long (ms) the client id is
     * throttled for it, 0 when it is within its share.
     */
    int recorded(String clientId, boolean pipelined) {
        long now = nowMs.getAsLong();
        Window w = window(now);
        String id = clientId == null ? "" : clientId;
        Counts c = w.counts.computeIfAbsent(id, k -> new Counts());
        long n = c.answered.incrementAndGet();
        if (pipelined) {
            c.pipelined.incrementAndGet();
        }
        if (n <= w.budget || !w.limited.contains(id)) {
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
                    : new Window(start, UNLIMITED, 0, Set.of()); // a window passed without requests: nothing competes
            current = next;
            return next;
        }
    }

    /** The window that follows {@code w}, starting at {@code start}. */
    private static Window after(Window w, long start) {
        long pressingTotal = 0;
        for (Counts c : w.counts.values()) {
            if (c.presses()) {
                pressingTotal += c.answered.get();
            }
        }
        Set<String> competing = new HashSet<>();
        long competingTotal = 0;
        for (Map.Entry<String, Counts> e : w.counts.entrySet()) {
            long answered = e.getValue().answered.get();
            if (e.getValue().presses() && answered * COMPETING_FRACTION >= pressingTotal) {
                competing.add(e.getKey());
                competingTotal += answered;
            }
        }
        boolean throttling = w.budget != UNLIMITED;
        int calm = w.saturated ? 0 : w.calm + 1;
        if (competing.size() < 2 || !(w.saturated || throttling && calm < CALM_WINDOWS)) {
            return new Window(start, UNLIMITED, 0, Set.of());
        }
        long share = competingTotal * HEADROOM_PERCENT / 100 / competing.size();
        return new Window(start, Math.max(MIN_BUDGET, share), calm, competing);
    }

    /** One client id's requests in a window: answered, and of those how many arrived pipelined. */
    private static final class Counts {
        final AtomicLong answered = new AtomicLong();
        final AtomicLong pipelined = new AtomicLong();

        boolean presses() {
            return pipelined.get() * PRESSING_FRACTION >= answered.get();
        }
    }

    private static final class Window {
        final long startMs;
        final long budget;
        /** Windows in a row without saturation before this one, while throttling. */
        final int calm;
        /** The client ids held to {@link #budget}: those that competed in the window before. */
        final Set<String> limited;
        final Map<String, Counts> counts = new ConcurrentHashMap<>();
        volatile boolean saturated;

        Window(long startMs, long budget, int calm, Set<String> limited) {
            this.startMs = startMs;
            this.budget = budget;
            this.calm = calm;
            this.limited = limited;
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
