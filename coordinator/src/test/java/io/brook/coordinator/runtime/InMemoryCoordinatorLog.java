package io.brook.coordinator.runtime;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A {@link CoordinatorLog} for tests that keeps records in memory: "durable" means appended to a
 * list that outlives a coordinator, so a new coordinator over the same instance sees what the old
 * one wrote, as after a restart. Appends complete at once unless {@link #holdAppends(boolean)} parks
 * them, which lets tests observe that nothing is answered before the write completes, or
 * {@link #failAppends(boolean)} makes them fail. Offsets count per partition from 0, one per record;
 * a read returns at most {@code maxBytes} records (at least one). Thread-safe (one lock).
 */
public final class InMemoryCoordinatorLog implements CoordinatorLog {

    private final Map<Integer, List<CoordinatorRecord>> partitions = new HashMap<>();
    private int size;
    private final List<Runnable> held = new ArrayList<>();
    /** The results of the appends in {@link #held}, in the same order. */
    private final List<CompletableFuture<Long>> heldResults = new ArrayList<>();
    private boolean hold;
    private boolean fail;

    @Override
    public CompletableFuture<Long> append(int partition, List<CoordinatorRecord> batch) {
        CompletableFuture<Long> result = new CompletableFuture<>();
        Runnable complete;
        synchronized (this) {
            if (fail) {
                complete = () -> result.completeExceptionally(new CoordinatorLogException(
                        CoordinatorLogException.Reason.UNAVAILABLE, "append failed (test)"));
            } else {
                List<CoordinatorRecord> copy = List.copyOf(batch);
                complete = () -> {
                    long last;
                    synchronized (InMemoryCoordinatorLog.this) {
                        List<CoordinatorRecord> records = partitions.computeIfAbsent(partition, p -> new ArrayList<>());
                        records.addAll(copy);
                        size += copy.size();
                        last = records.size() - 1;
                    }
                    result.complete(last);
                };
            }
            if (hold) {
                held.add(complete);
                heldResults.add(result);
                return result;
            }
        }
        complete.run();
        return result;
    }

    @Override
    public synchronized ReplayChunk read(int partition, long fromOffset, int maxBytes) {
        List<CoordinatorRecord> records = partitions.getOrDefault(partition, List.of());
        int from = (int) Math.max(0, fromOffset);
        if (from >= records.size()) return ReplayChunk.end(from);
        int to = (int) Math.min(records.size(), (long) from + Math.max(1, maxBytes));
        return new ReplayChunk(List.copyOf(records.subList(from, to)), to, to == records.size());
    }

    /** While true, appends are parked until {@link #releaseHeld()}. */
    public synchronized void holdAppends(boolean hold) {
        this.hold = hold;
    }

    /** While true, appends fail. */
    public synchronized void failAppends(boolean fail) {
        this.fail = fail;
    }

    /** Completes every parked append, in order. */
    public void releaseHeld() {
        List<Runnable> toRun;
        synchronized (this) {
            toRun = List.copyOf(held);
            held.clear();
            heldResults.clear();
        }
        toRun.forEach(Runnable::run);
    }

    /** Fails every parked append, as a log whose force failed: their records are not kept. */
    public void failHeld() {
        List<CompletableFuture<Long>> toFail;
        synchronized (this) {
            toFail = List.copyOf(heldResults);
            held.clear();
            heldResults.clear();
        }
        toFail.forEach(r -> r.completeExceptionally(new CoordinatorLogException(
                CoordinatorLogException.Reason.UNAVAILABLE, "not made durable (test)")));
    }

    /** Number of appends parked by {@link #holdAppends(boolean)}. */
    public synchronized int heldCount() {
        return held.size();
    }

    /** Number of records written so far (tombstones included). */
    public synchronized int size() {
        return size;
    }
}
