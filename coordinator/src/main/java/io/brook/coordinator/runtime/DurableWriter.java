package io.brook.coordinator.runtime;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntToLongFunction;

/**
 * Writes a coordinator's records through its {@link CoordinatorLog} and resumes on the
 * {@link EventLoop}'s owner thread once they are durable or the write failed, so that a coordinator
 * can answer "after the write" without leaving its thread.
 *
 * <p>Threading: {@link #write} is called on the owner thread; the log's completion, on whatever
 * thread it arrives, is handed over through {@link EventLoop#execute}, so the returned future
 * completes on the owner thread (after {@link EventLoop#stop}, on the thread that delivers the
 * completion, never concurrently with another task of the loop).
 *
 * <p><b>Ownership.</b> Given the ownership epochs of the partitions ({@link CoordinatorLoader#epoch}),
 * a write whose partition was lost (or lost and gained again) while it was in flight fails with
 * {@link CoordinatorLogException.Reason#NOT_LEADER}, whatever the log said: the state it was
 * meant for is gone, and its requests are answered NOT_COORDINATOR so that clients find the new
 * coordinator, which has the record if it was written.
 */
public final class DurableWriter {

    private final EventLoop loop;
    private final CoordinatorLog log;
    private final IntToLongFunction epochs;

    /** A writer for a coordinator that owns every partition for good. */
    public DurableWriter(EventLoop loop, CoordinatorLog log) {
        this(loop, log, p -> 0);
    }

    /** @param epochs the ownership epoch of a partition, read on the owner thread */
    public DurableWriter(EventLoop loop, CoordinatorLog log, IntToLongFunction epochs) {
        this.loop = loop;
        this.log = log;
        this.epochs = epochs;
    }

    /**
     * Appends {@code records} to one partition.
     *
     * @return completes on the owner thread once the records are durable; fails (also on the owner
     *         thread) with the log's exception when they are not written, including when the log
     *         threw instead of returning a failed future, and with NOT_LEADER when the partition
     *         changed owner meanwhile
     */
    public CompletableFuture<Void> write(int partition, List<CoordinatorRecord> records) {
        CompletableFuture<Void> out = new CompletableFuture<>();
        long epoch = epochs.applyAsLong(partition);
        CompletableFuture<Long> written;
        try {
            written = log.append(partition, records);
        } catch (RuntimeException e) {
            written = CompletableFuture.failedFuture(e);
        }
        written.whenComplete((offset, error) -> loop.execute(() -> {
            if (epochs.applyAsLong(partition) != epoch) {
                out.completeExceptionally(new CoordinatorLogException(CoordinatorLogException.Reason.NOT_LEADER,
                        "partition " + partition + " changed owner while the write was in flight", error));
            } else if (error != null) {
                out.completeExceptionally(error);
            } else {
                out.complete(null);
            }
        }));
        return out;
    }
}
