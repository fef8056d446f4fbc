package io.brook.server.network;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The connections that hold bytes of SASL clients which have not authenticated yet, so that the
 * pre-authentication budget, once exceeded, is given back by closing the connections that hold
 * the most of it rather than by stopping every unauthenticated connection.
 *
 * <p>Why: a login is a few hundred bytes (an OAUTHBEARER token a few KiB), while a client that
 * never means to log in may start frames of up to {@code sasl.server.max.receive.size} and never
 * finish them. If exceeding the budget only paused reading, a few dozen such clients (the budget
 * over 512 KiB) would keep every new login on every SASL listener waiting for as long as they
 * keep reconnecting. Closing the largest holders instead keeps the memory bound and lets a login
 * through at once: it is never the largest holder while someone holds more.
 *
 * <p>How many are closed: connections are picked, largest first, until the bytes of those being
 * closed cover how far the budget is exceeded; a connection being closed is not picked twice.
 * The bytes count as given back only when its own event loop has closed it ({@link #released}).
 *
 * <p>Logging: a client that reconnects as fast as it is closed could otherwise write a log line
 * per connection; the first close of every {@link #LOG_EVERY_MS} is logged with its address, and
 * the others of that period are counted in the next line.
 *
 * <p>Thread-safe: holders register and leave from their own event loops, and the pick may run on
 * any of them; a holder's count is read without its loop, so it may be a few bytes stale.
 */
final class UnauthenticatedHolders {

    /** At most one log line per this many milliseconds. */
    static final long LOG_EVERY_MS = 10_000;

    /** A connection holding pre-authentication bytes. */
    interface Holder {
        /** The pre-authentication bytes it holds now (read from any thread). */
        long unauthenticatedBytes();

        /** Closes it on its own event loop, logging why when {@code log}; it then calls {@link #released}. */
        void evict(String reason, boolean log);
    }

    private final ByteBudget budget;
    private final Set<Holder> holders = ConcurrentHashMap.newKeySet();
    /** Holders picked for closing, with the bytes they held when picked. */
    private final ConcurrentHashMap<Holder, Long> closing = new ConcurrentHashMap<>();
    private final AtomicLong closingBytes = new AtomicLong();
    private final LongSupplier nowMs;
    private final AtomicLong lastLogMs = new AtomicLong(-LOG_EVERY_MS);
    private final AtomicInteger unlogged = new AtomicInteger();

    UnauthenticatedHolders(ByteBudget budget, LongSupplier nowMs) {
        this.budget = budget;
        this.nowMs = nowMs;
    }

    /** {@code h} holds pre-authentication bytes now. */
    void holding(Holder h) {
        holders.add(h);
    }

    /** {@code h} holds none any more (they were handed on, or it closed). */
    void released(Holder h) {
        holders.remove(h);
        Long picked = closing.remove(h);
        if (picked != null) {
            closingBytes.addAndGet(-picked);
        }
    }

    /**
     * While the budget is exceeded by more than the holders already being closed hold, picks the
     * largest other holder and closes it. Returns how many were picked.
     */
    int makeRoom() {
        int picked = 0;
        while (budget.exceeded() && budget.used() - budget.limit() > closingBytes.get()) {
            Holder largest = null;
            long most = 0;
            for (Holder h : holders) {
                long held = h.unauthenticatedBytes();
                if (held > most && !closing.containsKey(h)) {
                    largest = h;
                    most = held;
                }
            }
            if (largest == null || closing.putIfAbsent(largest, most) != null) {
                return picked; // nothing left to pick, or another thread picked it just now
            }
            closingBytes.addAndGet(most);
            picked++;
            long now = nowMs.getAsLong();
            long last = lastLogMs.get();
            boolean log = now - last >= LOG_EVERY_MS && lastLogMs.compareAndSet(last, now);
            String reason = "it held the most bytes (" + most + ") of the pre-authentication budget"
                    + " (queued.max.request.bytes / 8 = " + budget.limit() + "), which was exceeded";
            if (log) {
                int others = unlogged.getAndSet(0);
                if (others > 0) {
                    reason += "; " + others + " more unauthenticated connections were closed for this since the last"
                            + " such line";
                }
            } else {
                unlogged.incrementAndGet();
            }
            largest.evict(reason, log);
        }
        return picked;
    }
}
