package io.brook.server;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Long-poll fetches waiting for data, by partition. A {@link DelayedFetch} registers on every
 * partition it reads; the storage's high-watermark listener (after the group commit, or after
 * the write when fsync-on-ack is off) calls {@link #wake}, which asks each waiter there to check
 * again.
 * Nothing polls: a waiter is touched only by a wake-up or by its own deadline.
 *
 * <p>Thread-safe; {@link #wake} is cheap and may run on the flusher thread — waiters do their
 * re-check on the I/O pool.
 */
final class FetchWaiters {

    private final Map<TopicPartition, Set<DelayedFetch>> byPartition = new ConcurrentHashMap<>();

    void watch(TopicPartition tp, DelayedFetch fetch) {
        byPartition.computeIfAbsent(tp, k -> ConcurrentHashMap.newKeySet()).add(fetch);
    }

    void unwatch(TopicPartition tp, DelayedFetch fetch) {
        byPartition.computeIfPresent(tp, (k, set) -> {
            set.remove(fetch);
            return set.isEmpty() ? null : set;
        });
    }

    void wake(TopicPartition tp) {
        Set<DelayedFetch> set = byPartition.get(tp);
        if (set != null) {
            for (DelayedFetch f : set) {
                f.onData();
            }
        }
    }

    /** Completes every waiting fetch now (shutdown). */
    void wakeAll() {
        for (Set<DelayedFetch> set : byPartition.values()) {
            for (DelayedFetch f : set) {
                f.expire();
            }
        }
    }

    int waiting() {
        int n = 0;
        for (Set<DelayedFetch> set : byPartition.values()) {
            n += set.size();
        }
        return n;
    }
}
