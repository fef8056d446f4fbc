package io.brook.cluster.member;

import io.brook.cluster.controller.ControllerError;
import io.brook.cluster.controller.ControllerException;
import io.brook.cluster.raft.MetadataQuorumNode;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The asking side of the controller channel: sends a {@link ControllerRequest} to the Ratis
 * leader as a read-only client request (Ratis routes it to the leader's state machine and follows
 * NotLeader replies), and completes with the decision's value once this node has applied the
 * decision (the reply's applied index).
 *
 * <ul>
 *   <li>REFUSED fails with {@link ControllerException} and the controller's error and message;
 *   <li>NO_CONTROLLER (the leader has no controller yet, or just lost leadership; nothing was
 *       decided) is asked again after a back-off, until {@code timeout}, then fails with
 *       NOT_CONTROLLER;
 *   <li>no answer from Ratis (no leader elected within its retries, a time-out) fails with
 *       NOT_CONTROLLER: the caller may retry, knowing the decision may or may not have been made.
 * </ul>
 */
final class ControllerChannel {
    private static final long FIRST_BACKOFF_MS = 50;
    private static final long MAX_BACKOFF_MS = 1000;

    private final MetadataQuorumNode node;
    private final AppliedIndexWaiters waiters;
    private final ScheduledExecutorService scheduler;
    private final Executor callbacks;
    private final Duration timeout;

    ControllerChannel(MetadataQuorumNode node, AppliedIndexWaiters waiters, ScheduledExecutorService scheduler,
                      Executor callbacks, Duration timeout) {
        this.node = node;
        this.waiters = waiters;
        this.scheduler = scheduler;
        this.callbacks = callbacks;
        this.timeout = timeout;
    }

    /** Asks the controller; completes with the decision's value (cast to {@code type}) once applied here. */
    <T> CompletableFuture<T> ask(ControllerRequest request, Class<T> type) {
        CompletableFuture<T> result = new CompletableFuture<>();
        attempt(request, type, result, System.nanoTime() + timeout.toNanos(), FIRST_BACKOFF_MS);
        return result;
    }

    private <T> void attempt(ControllerRequest request, Class<T> type, CompletableFuture<T> result, long deadline,
                             long backoffMs) {
        node.query(request.encode()).thenApply(ControllerReply::decode).whenComplete((reply, e) -> {
            if (e != null) {
                Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
                fail(result, new ControllerException(ControllerError.NOT_CONTROLLER, "no controller answered "
                        + request.getClass().getSimpleName() + " from node " + node.nodeId() + ": " + cause));
                return;
            }
            switch (reply.outcome()) {
                case DECIDED -> waiters.await(reply.appliedIndex()).whenCompleteAsync((v, we) -> {
                    if (we != null) {
                        result.completeExceptionally(we);
                    } else {
                        result.complete(type.cast(reply.value()));
                    }
                }, callbacks);
                case REFUSED -> fail(result, new ControllerException(reply.error(), reply.message()));
                case NO_CONTROLLER -> {
                    if (System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(backoffMs) > deadline) {
                        fail(result, new ControllerException(ControllerError.NOT_CONTROLLER, "no controller took "
                                + request.getClass().getSimpleName() + " from node " + node.nodeId() + " within "
                                + timeout.toMillis() + " ms: " + reply.message()));
                        return;
                    }
                    try {
                        scheduler.schedule(() -> attempt(request, type, result, deadline,
                                Math.min(backoffMs * 2, MAX_BACKOFF_MS)), backoffMs, TimeUnit.MILLISECONDS);
                    } catch (RejectedExecutionException closed) {
                        fail(result, new ControllerException(ControllerError.NOT_CONTROLLER, "this cluster member is closed"));
                    }
                }
            }
        });
    }

    private void fail(CompletableFuture<?> result, Throwable e) {
        try {
            callbacks.execute(() -> result.completeExceptionally(e));
        } catch (RejectedExecutionException closed) {
            result.completeExceptionally(e);
        }
    }
}
