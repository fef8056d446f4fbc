package io.brook.coordinator.runtime;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Writes a coordinator's records through its {@link CoordinatorLog} and resumes on the
 * {@link EventLoop}'s owner thread once they are durable or the write failed, so that a coordinator
 * can answer "after the write" without leaving its thread.
 *
 * <p>Threading: {@link #write} is called on the owner thread; the log's completion, on whatever
 * thread it arrives, is handed over through {@link EventLoop#execute}, so the returned future
 * completes on the owner thread (after {@link EventLoop#stop}, on the thread that delivers the
 * completion, never concurrently with another task of the loop).
 */
public final class DurableWriter {

    private final EventLoop loop;
    private final CoordinatorLog log;

    public DurableWriter(EventLoop loop, CoordinatorLog log) {
        this.loop = loop;
        this.log = log;
    }

    /**
     * Appends {@code records} to one partition.
     *
     * @return completes on the owner thread once the records are durable; fails (also on the owner
     *         thread) with the log's exception when they are not written, including when the log
     *         threw instead of returning a failed future
     */
    public CompletableFuture<Void> write(int partition, List<CoordinatorRecord> records) {
        return append(partition, records).durable();
    }

    /**
     * An append and its durability.
     *
     * @param appended false when the log refused the records at once (then {@code durable} fails);
     *                 true when they are in the log, in order before whatever is appended to the
     *                 partition next, though maybe not durable yet
     * @param durable  as {@link #write} returns it
     */
    public record Appended(boolean appended, CompletableFuture<Void> durable) {
    }

    /**
     * {@link #write}, telling also whether the records are in the log now: a coordinator may let a
     * record that only restates durable facts take effect at once, since the next record written
     * to the partition becomes durable only with it.
     */
    public Appended append(int partition, List<CoordinatorRecord> records) {
        CompletableFuture<Void> out = new CompletableFuture<>();
        CompletableFuture<Long> written;
        try {
            written = log.append(partition, records);
        } catch (RuntimeException e) {
            written = CompletableFuture.failedFuture(e);
        }
        boolean refused = written.isCompletedExceptionally();
        written.whenComplete((offset, error) -> loop.execute(() -> {
            if (error != null) {
                out.completeExceptionally(error);
            } else {
                out.complete(null);
            }
        }));
        return new Appended(!refused, out);
    }
}
