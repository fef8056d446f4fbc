package io.brook.coordinator.txn;

import java.util.concurrent.CompletableFuture;

/**
 * Thrown by the coordinator's producer-id source when it has no id at hand now (in cluster mode:
 * the block is used up and the controller's next one is under way), instead of waiting for one on
 * the coordinator's thread. {@link #ready()} completes when asking again may succeed (or fails
 * with the reason no id came); the coordinator then runs the request again.
 */
public final class ProducerIdsPending extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient CompletableFuture<?> ready;

    public ProducerIdsPending(CompletableFuture<?> ready) {
        super("no producer id at hand: the next block is under way", null, false, false);
        this.ready = ready;
    }

    /** Completes when the next block is there; fails when it could not be had. */
    public CompletableFuture<?> ready() {
        return ready;
    }
}
