package io.brook.server.api;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * Keeps the transactions V2 Produce requests of one transactional id in arrival order. A request
 * whose partitions must first be added to the transaction waits for the coordinator; the requests
 * of the same producer that arrive meanwhile (a pipelining producer has up to five in flight) wait
 * behind it and are checked and appended only after it, as Kafka, which reads no further request
 * of a connection until the previous one is answered, handles them. Without this, a later batch
 * of a partition being added could be appended before the first one, or refused out of sequence
 * while that one is still in flight.
 *
 * <p>Thread-safe; the steps run on the thread that calls {@link #run} when nothing is waiting,
 * else on the given executor once the requests before them are appended.
 */
final class TxnProduceOrder {

    /** Per transactional id, completes once its last request so far has been appended or refused. */
    private final Map<String, CompletableFuture<Void>> tails = new HashMap<>();

    /**
     * Runs {@code step} now when no earlier request of {@code transactionalId} is waiting, else
     * (after {@code beforeWait}) once those are done. The step returns a future that completes
     * when its appends are done, or null when it finished at once; it reports its own failures.
     */
    void run(String transactionalId, Executor executor, Runnable beforeWait, Supplier<CompletableFuture<?>> step) {
        CompletableFuture<Void> mine = new CompletableFuture<>();
        CompletableFuture<Void> previous;
        synchronized (this) {
            previous = tails.put(transactionalId, mine);
        }
        mine.whenComplete((v, x) -> {
            synchronized (this) {
                tails.remove(transactionalId, mine);
            }
        });
        if (previous == null) {
            runStep(step, mine);
        } else {
            beforeWait.run();
            previous.whenComplete((v, x) -> executor.execute(() -> runStep(step, mine)));
        }
    }

    private static void runStep(Supplier<CompletableFuture<?>> step, CompletableFuture<Void> done) {
        CompletableFuture<?> appended;
        try {
            appended = step.get();
        } catch (RuntimeException e) {
            done.complete(null);
            throw e;
        }
        if (appended == null) {
            done.complete(null);
        } else {
            appended.whenComplete((v, x) -> done.complete(null));
        }
    }
}
