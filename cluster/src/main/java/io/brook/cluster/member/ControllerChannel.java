package io.brook.cluster.member;

import io.brook.cluster.controller.ControllerError;
import io.brook.cluster.controller.ControllerException;
import io.brook.cluster.raft.MetadataQuorumNode;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

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
 *
 * <p>Every sending of one ask carries the same id ({@link ControllerAsk}), so that the controller
 * decides it once however often it arrives: Ratis' client sends it again when its stream fails,
 * and this channel after NO_CONTROLLER.
 *
 * <p>While this node knows no leader (an election is on), or leads but is not ready yet, nothing is
 * sent: the request waits, looking again every 100 ms at most, since any server could only refuse
 * it now, and a refusal costs Ratis' client its connection (see {@link MetadataQuorumNode#query}).
 */
final class ControllerChannel {
    private static final long FIRST_BACKOFF_MS = 50;
    private static final long MAX_BACKOFF_MS = 1000;
    /** How often a request waiting for an election looks for a leader (elections take 1–2 s by default). */
    private static final long NO_LEADER_BACKOFF_MS = 100;

    private final MetadataQuorumNode node;
    private final AppliedIndexWaiters waiters;
    private final ScheduledExecutorService scheduler;
    private final Executor callbacks;
    private final Duration timeout;
    /** This channel's part of its asks' ids ({@link ControllerAsk}): a node that restarts has a new one. */
    private final long channel = ThreadLocalRandom.current().nextLong();
    private final AtomicLong asks = new AtomicLong();

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
        byte[] bytes = ControllerAsk.wrap(new ControllerAsk.Id(node.nodeId(), channel, asks.incrementAndGet()),
                request.encode());
        attempt(request, bytes, type, result, System.nanoTime() + timeout.toNanos(), FIRST_BACKOFF_MS);
        return result;
    }

    private <T> void attempt(ControllerRequest request, byte[] bytes, Class<T> type, CompletableFuture<T> result,
                             long deadline, long backoffMs) {
        if (node.awaitsLeader()) {
            retryLater(request, bytes, type, result, deadline, Math.min(backoffMs, NO_LEADER_BACKOFF_MS), backoffMs,
                    "node " + node.nodeId() + " knows no leader of the metadata quorum");
            return;
        }
        CompletableFuture<ByteBuffer> sent;
        try {
            // on a callback thread: on the leader the controller decides within query(), and the
            // caller may be Ratis' apply thread (an apply listener), which must not run decisions
            sent = CompletableFuture.supplyAsync(() -> node.query(bytes), callbacks).thenCompose(f -> f);
        } catch (RejectedExecutionException closed) {
            result.completeExceptionally(new ControllerException(ControllerError.NOT_CONTROLLER,
                    "this cluster member is closed"));
            return;
        }
        sent.thenApply(ControllerReply::decode).whenComplete((reply, e) -> {
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
                case REFUSED -> {
                    if (ControllerAsk.refusedByEarlierVersion(reply)) {
                        // a controller of an earlier version refused the envelope, deciding nothing:
                        // ask it as it understands (only an envelope is refused so, never a bare request)
                        attempt(request, request.encode(), type, result, deadline, backoffMs);
                    } else {
                        fail(result, new ControllerException(reply.error(), reply.message()));
                    }
                }
                case NO_CONTROLLER -> retryLater(request, bytes, type, result, deadline, backoffMs,
                        Math.min(backoffMs * 2, MAX_BACKOFF_MS), reply.message());
            }
        });
    }

    /** Asks again after {@code delayMs}, with {@code nextBackoffMs} for the time after, or fails at the deadline. */
    private <T> void retryLater(ControllerRequest request, byte[] bytes, Class<T> type, CompletableFuture<T> result,
                                long deadline, long delayMs, long nextBackoffMs, String why) {
        if (System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delayMs) > deadline) {
            fail(result, new ControllerException(ControllerError.NOT_CONTROLLER, "no controller took "
                    + request.getClass().getSimpleName() + " from node " + node.nodeId() + " within "
                    + timeout.toMillis() + " ms: " + why));
            return;
        }
        try {
            scheduler.schedule(() -> attempt(request, bytes, type, result, deadline, nextBackoffMs), delayMs,
                    TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closed) {
            fail(result, new ControllerException(ControllerError.NOT_CONTROLLER, "this cluster member is closed"));
        }
    }

    private void fail(CompletableFuture<?> result, Throwable e) {
        try {
            callbacks.execute(() -> result.completeExceptionally(e));
        } catch (RejectedExecutionException closed) {
            result.completeExceptionally(e);
        }
    }
}
