package io.brook.server.network;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs tasks one at a time, in submission order, on a shared pool: the requests of one
 * connection are handled in order while different connections run in parallel. A task that
 * throws does not stop the ones after it.
 *
 * <p>{@link #isIdle} lets the submitting thread run a task itself instead, when nothing it
 * submitted earlier is still queued or running (the connection's inline requests).
 */
final class SerialExecutor implements Executor {

    private static final Logger LOG = LoggerFactory.getLogger(SerialExecutor.class);

    private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final Executor pool;

    SerialExecutor(Executor pool) {
        this.pool = pool;
    }

    @Override
    public void execute(Runnable task) {
        tasks.add(task);
        schedule();
    }

    /**
     * True when no task is queued or running. Meant for the one thread that submits: when it sees
     * an idle executor, every task it submitted before has returned (the flag is cleared only after
     * the last one ran), so work it then does itself still follows them in order.
     */
    boolean isIdle() {
        return !scheduled.get() && tasks.isEmpty();
    }

    private void schedule() {
        if (!tasks.isEmpty() && scheduled.compareAndSet(false, true)) {
            try {
                pool.execute(this::drain);
            } catch (RejectedExecutionException e) {
                scheduled.set(false);
                throw e;
            }
        }
    }

    private void drain() {
        try {
            Runnable task;
            while ((task = tasks.poll()) != null) {
                try {
                    task.run();
                } catch (Throwable t) {
                    LOG.error("Task failed", t);
                }
            }
        } finally {
            scheduled.set(false);
        }
        schedule();
    }
}
