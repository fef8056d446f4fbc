package io.brook.coordinator.runtime;

import io.brook.wire.protocol.Errors;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands a coordinator's requests to its owner thread and makes sure each gets an answer in the
 * API's own error response when it cannot be served: NOT_COORDINATOR once the coordinator is
 * closed (checked on the caller's thread) or shut down (checked on the owner thread), and
 * UNKNOWN_SERVER_ERROR when the task throws or its future fails — a bug, so it is logged at ERROR
 * and counted ({@link #failures()}, which tests expect to stay 0). The loop's own timers report
 * their failures here too ({@link #failed}).
 */
public final class CoordinatorRequests {

    private static final Logger LOG = LoggerFactory.getLogger(CoordinatorRequests.class);

    private final String name;
    private final BooleanSupplier closed;
    private final BooleanSupplier shutdown;
    private final AtomicInteger failures = new AtomicInteger();
    private EventLoop loop;

    /**
     * @param name the coordinator, for log lines ("group coordinator")
     * @param closed true once the coordinator takes no more requests; read on any thread
     * @param shutdown true once the owner thread stopped serving; read on the owner thread
     */
    public CoordinatorRequests(String name, BooleanSupplier closed, BooleanSupplier shutdown) {
        this.name = name;
        this.closed = closed;
        this.shutdown = shutdown;
    }

    /** The loop the requests run on; set once, before the first {@link #submit}. */
    public void runOn(EventLoop loop) {
        this.loop = loop;
    }

    /**
     * {@link #submit(Supplier, Function)} behind a check on the owner thread: when {@code gate}
     * says other than NONE (e.g. COORDINATOR_LOAD_IN_PROGRESS), the API's error response with it
     * is the answer and {@code task} does not run.
     */
    public <R> CompletableFuture<R> submit(Supplier<Errors> gate, Supplier<CompletableFuture<R>> task,
                                           Function<Errors, R> errorResponse) {
        return submit(() -> {
            Errors e = gate.get();
            return e == Errors.NONE ? task.get() : CompletableFuture.completedFuture(errorResponse.apply(e));
        }, errorResponse);
    }

    /** Runs {@code task} on the owner thread; any failure becomes {@code errorResponse}'s answer. */
    public <R> CompletableFuture<R> submit(Supplier<CompletableFuture<R>> task, Function<Errors, R> errorResponse) {
        CompletableFuture<R> result = new CompletableFuture<>();
        if (closed.getAsBoolean()) {
            result.complete(errorResponse.apply(Errors.NOT_COORDINATOR));
            return result;
        }
        loop.execute(() -> {
            if (shutdown.getAsBoolean()) {
                result.complete(errorResponse.apply(Errors.NOT_COORDINATOR));
                return;
            }
            CompletableFuture<R> inner;
            try {
                inner = task.get();
            } catch (RuntimeException e) {
                failed("request", e);
                result.complete(errorResponse.apply(Errors.UNKNOWN_SERVER_ERROR));
                return;
            }
            inner.whenComplete((r, e) -> {
                if (e != null) {
                    failed("request", e);
                    result.complete(errorResponse.apply(Errors.UNKNOWN_SERVER_ERROR));
                } else {
                    result.complete(r);
                }
            });
        });
        return result;
    }

    /** Counts and logs a failure of {@code what} (a request, a timer, a completion): a bug. */
    public void failed(String what, Throwable e) {
        failures.incrementAndGet();
        LOG.error("{}: {} failed", name, what, e);
    }

    /** Requests and timers that failed with an exception so far (a bug if not zero). */
    public int failures() {
        return failures.get();
    }
}
