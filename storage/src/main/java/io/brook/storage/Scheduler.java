package io.brook.storage;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Background work of the storage layer on one daemon thread: delayed file deletion, retention,
 * compaction, checkpoints, time-based flushes and the producer snapshots taken by rolls. Tasks
 * only decide by the injected clock, so tests call the same methods directly instead of waiting
 * for the thread.
 *
 * <p>Failures: a task that throws is logged and the thread goes on (a periodic task keeps its
 * schedule; an executor would otherwise cancel it silently). An {@link Error} is logged and
 * handed to the error handler, which takes the data the task may have left half-changed
 * offline (see {@link LogManager}); the thread survives it too.
 */
final class Scheduler implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Scheduler.class);

    private final ScheduledExecutorService executor;
    private final Consumer<Throwable> onError;

    /** A scheduler whose tasks' {@link Error}s are only logged (tests). */
    Scheduler(String name) {
        this(name, e -> { });
    }

    /** @param onError told of every {@link Error} a task throws, on the task's thread */
    Scheduler(String name, Consumer<Throwable> onError) {
        this.onError = onError;
        ScheduledThreadPoolExecutor e = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
        e.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        e.setRemoveOnCancelPolicy(true);
        this.executor = e;
    }

    /** Runs {@code task} once after {@code delayMs}; with a delay of 0, right now on this thread. */
    void schedule(Runnable task, long delayMs) {
        if (delayMs <= 0) {
            safely(task);
            return;
        }
        if (!executor.isShutdown()) {
            // the task logs its own failures (safely), so the future has nothing more to report
            ScheduledFuture<?> unused = executor.schedule(() -> safely(task), delayMs, TimeUnit.MILLISECONDS);
        }
    }

    /** Runs {@code task} soon on this scheduler's thread (never on the caller's); dropped once closed. */
    void execute(Runnable task) {
        try {
            executor.execute(() -> safely(task));
        } catch (RejectedExecutionException e) {
            // closed: the work is done by whoever closes the log, or not at all
        }
    }

    void schedulePeriodic(Runnable task, long periodMs) {
        ScheduledFuture<?> unused = executor.scheduleWithFixedDelay(() -> safely(task), periodMs, periodMs,
                TimeUnit.MILLISECONDS);
    }

    private void safely(Runnable task) {
        try {
            task.run();
        } catch (RuntimeException e) {
            LOG.error("storage background task failed", e);
        } catch (Error e) {
            LOG.error("storage background task failed with an Error", e);
            try {
                onError.accept(e);
            } catch (RuntimeException | Error handlerFailure) {
                LOG.error("storage background error handler failed", handlerFailure);
            }
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
        try {
            executor.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
