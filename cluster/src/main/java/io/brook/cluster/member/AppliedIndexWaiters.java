package io.brook.cluster.member;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.LongSupplier;

/**
 * Futures that complete once this node's state machine has applied a log index: how a decision
 * made by the controller on another node becomes visible here before its caller hears of it
 * (read-your-writes). The state machine calls {@link #applied()} after each entry it applies; the
 * futures complete on {@code executor}, never on the apply thread. Thread-safe.
 */
final class AppliedIndexWaiters {

    private record Waiter(long index, CompletableFuture<Void> future) {
    }

    private final LongSupplier lastApplied;
    private final Executor executor;
    private final PriorityQueue<Waiter> waiting = new PriorityQueue<>((a, b) -> Long.compare(a.index(), b.index()));
    private boolean closed;

    AppliedIndexWaiters(LongSupplier lastApplied, Executor executor) {
        this.lastApplied = lastApplied;
        this.executor = executor;
    }

    /** Completes once the local state machine has applied {@code index}. */
    CompletableFuture<Void> await(long index) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        synchronized (this) {
            if (closed) {
                f.completeExceptionally(new IllegalStateException("this cluster member is closed"));
                return f;
            }
            waiting.add(new Waiter(index, f));
        }
        applied();
        return f;
    }

    /** Completes the futures of every index applied by now. */
    void applied() {
        long last = lastApplied.getAsLong();
        List<CompletableFuture<Void>> done = new ArrayList<>();
        synchronized (this) {
            while (!waiting.isEmpty() && waiting.peek().index() <= last) {
                done.add(waiting.poll().future());
            }
        }
        for (CompletableFuture<Void> f : done) {
            executor.execute(() -> f.complete(null));
        }
    }

    /** Fails every future still waiting. */
    void close() {
        List<Waiter> left;
        synchronized (this) {
            closed = true;
            left = new ArrayList<>(waiting);
            waiting.clear();
        }
        for (Waiter w : left) {
            w.future().completeExceptionally(new IllegalStateException("this cluster member is closed"));
        }
    }
}
