package io.brook.server.api.fetch;

import io.brook.server.topic.TopicPartition;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Long-poll fetches waiting for data, by partition. A {@link DelayedFetch} registers on every
 * partition it reads; the storage's high-watermark listener (after the group commit, or after
 * the write when fsync-on-ack is off) calls {@link #wake}, which asks each waiter there to check
 * again.
 * Nothing polls: a waiter is touched only by a wake-up or by its own deadline.
 *
 * <p>Concurrency: a partition's set of waiters is added to and removed from only inside the
 * map's atomic update of that partition, and is dropped from the map in the same update that
 * empties it. So a set the map no longer holds is never added to: were the add done after the
 * lookup (computeIfAbsent, then add), the last other waiter could leave in between, the emptied
 * set be dropped, and the new waiter land in a set no wake-up reaches — it would then be answered
 * only at its deadline. (That happened to a consumer's next fetch racing with the unregistration
 * of the one just answered.) A registration that {@link #wake} misses because it came after the
 * wake-up read the set is covered by the check every fetch makes after registering.
 *
 * <p>Bound: every re-check of a waiter reads all its partitions, and a wake-up re-checks every
 * waiter of the partition, so the cost of a record grows with the waiters. Their total, each
 * fetch counted once per partition it waits on, is kept within
 * {@code brook.fetch.max.waiting.partitions}: a fetch that does not {@linkplain #tryAdmit fit} is
 * answered at once with what there is, as if its {@code max_wait_ms} had passed. A waiter leaves
 * when it is answered or when its connection closes.
 *
 * <p>Thread-safe; {@link #wake} is cheap and may run on the flusher thread — waiters do their
 * re-check on their connection's event loop (or the I/O pool when inline requests are off).
 */
public final class FetchWaiters {

    private final ConcurrentMap<TopicPartition, Set<DelayedFetch>> byPartition;
    private final int maxWaiting;
    private final AtomicInteger admitted = new AtomicInteger();

    /** Waiters for at most {@code maxWaiting} partitions at once (fetches counted once per partition). */
    public FetchWaiters(int maxWaiting) {
        this(new ConcurrentHashMap<>(), maxWaiting);
    }

    /** With a given (empty) map: tests use one that interleaves other calls with these. */
    FetchWaiters(ConcurrentMap<TopicPartition, Set<DelayedFetch>> byPartition, int maxWaiting) {
        this.byPartition = byPartition;
        this.maxWaiting = maxWaiting;
    }

    /** Makes room for a fetch that waits on {@code partitions} partitions; false when full. */
    boolean tryAdmit(int partitions) {
        if (admitted.addAndGet(partitions) <= maxWaiting) {
            return true;
        }
        admitted.addAndGet(-partitions);
        return false;
    }

    /** A fetch admitted with {@link #tryAdmit} stopped waiting. */
    void leave(int partitions) {
        admitted.addAndGet(-partitions);
    }

    void watch(TopicPartition tp, DelayedFetch fetch) {
        byPartition.compute(tp, (k, set) -> {
            Set<DelayedFetch> s = set != null ? set : ConcurrentHashMap.newKeySet();
            s.add(fetch);
            return s;
        });
    }

    void unwatch(TopicPartition tp, DelayedFetch fetch) {
        byPartition.computeIfPresent(tp, (k, set) -> {
            set.remove(fetch);
            return set.isEmpty() ? null : set;
        });
    }

    public void wake(TopicPartition tp) {
        Set<DelayedFetch> set = byPartition.get(tp);
        if (set != null) {
            for (DelayedFetch f : set) {
                f.onData();
            }
        }
    }

    /** Completes every waiting fetch now (shutdown). */
    public void wakeAll() {
        for (Set<DelayedFetch> set : byPartition.values()) {
            for (DelayedFetch f : set) {
                f.expire();
            }
        }
    }

    /** Fetches waiting, counted once per partition they wait on. */
    public int waiting() {
        int n = 0;
        for (Set<DelayedFetch> set : byPartition.values()) {
            n += set.size();
        }
        return n;
    }
}
