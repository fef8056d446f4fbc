package io.brook.server.time;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Runs tasks after a delay: the deadlines of the broker's delayed operations (a long-poll fetch's
 * {@code max_wait_ms}, an acks=all produce's {@code timeout_ms}, a connection's
 * {@code connections.max.idle.ms}, a request's {@code brook.request.receive.timeout.ms}), all
 * measured on one time line.
 *
 * <p>Tasks run on the timer's own thread and must be short: they hand real work to an event loop
 * or to the I/O pool. A task whose deadline passes after {@link #close} never runs.
 *
 * <p>The broker's timer is a {@link WheelTimer} (wall clock, a few milliseconds of resolution);
 * with a clock of its own ({@code Brook.builder().clock(...)}) it is a {@link ClockTimer}, whose
 * deadlines move only when that clock does.
 */
public interface Timer extends AutoCloseable {

    /** Now, in milliseconds, on the time line the delays are measured on (only differences mean anything). */
    long nowMs();

    /** Runs {@code task} once {@code delayMs} have passed (at once when not positive), unless cancelled first. */
    Scheduled schedule(long delayMs, Runnable task);

    /**
     * Hands {@code task} to {@code executor} (a channel's event loop) once {@code delayMs} have
     * passed, unless cancelled first; the timer's thread only passes it on. Nothing when the
     * executor has shut down by then (the broker stopped, and what the task served with it).
     */
    default Scheduled scheduleOn(Executor executor, long delayMs, Runnable task) {
        return schedule(delayMs, () -> {
            try {
                executor.execute(task);
            } catch (RejectedExecutionException e) {
                // the executor is shut down: nothing is left for the task to do
            }
        });
    }

    /** Stops the timer; tasks not yet run never run. */
    @Override
    void close();

    /** A scheduled task. */
    interface Scheduled {
        /** Keeps the task from running if it has not run yet; later calls do nothing. */
        void cancel();
    }
}
