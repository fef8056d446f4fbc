package io.brook.coordinator.txn;

import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What is known of one transactional id at one moment: what its record in
 * {@code __transaction_state} holds, plus the epoch it had before the last bump (kept in memory
 * only, as in Kafka, to recognise a producer's retry of InitProducerId).
 *
 * @param producerId       the producer id in use
 * @param producerEpoch    its epoch; -1 before the first InitProducerId completed
 * @param lastProducerEpoch the epoch before the last bump, or -1
 * @param timeoutMs        the transaction time-out the producer asked for
 * @param state            the state
 * @param partitions       topic → partitions of the open transaction (sorted, unmodifiable)
 * @param startMs          when the open transaction began, or -1
 * @param updateMs         when the state last changed
 */
record TxnSnapshot(long producerId, short producerEpoch, short lastProducerEpoch, int timeoutMs, TxnState state,
                   SortedMap<String, SortedSet<Integer>> partitions, long startMs, long updateMs) {

    static final SortedMap<String, SortedSet<Integer>> NONE = Collections.unmodifiableSortedMap(new TreeMap<>());

    TxnSnapshot {
        partitions = partitions.isEmpty() ? NONE : partitions;
    }

    TxnSnapshot withState(TxnState s, long now) {
        return new TxnSnapshot(producerId, producerEpoch, lastProducerEpoch, timeoutMs, s, partitions, startMs, now);
    }

    /** Finished: the partitions are forgotten. */
    TxnSnapshot completed(TxnState s, long now) {
        return new TxnSnapshot(producerId, producerEpoch, lastProducerEpoch, timeoutMs, s, NONE, startMs, now);
    }

    /** Ongoing with {@code more} partitions; a transaction that was not ongoing starts now. */
    TxnSnapshot withPartitions(Map<String, ? extends Set<Integer>> more, long now) {
        boolean starts = state != TxnState.ONGOING;
        TreeMap<String, SortedSet<Integer>> merged = new TreeMap<>();
        if (!starts) {
            partitions.forEach((t, ps) -> merged.put(t, new TreeSet<>(ps)));
        }
        more.forEach((t, ps) -> merged.computeIfAbsent(t, x -> new TreeSet<>()).addAll(ps));
        TreeMap<String, SortedSet<Integer>> frozen = new TreeMap<>();
        merged.forEach((t, ps) -> frozen.put(t, Collections.unmodifiableSortedSet(ps)));
        return new TxnSnapshot(producerId, producerEpoch, lastProducerEpoch, timeoutMs, TxnState.ONGOING,
                Collections.unmodifiableSortedMap(frozen), starts ? now : startMs, now);
    }

    /** Whether every partition of {@code more} is already part of the transaction. */
    boolean containsAll(Map<String, ? extends Set<Integer>> more) {
        for (Map.Entry<String, ? extends Set<Integer>> e : more.entrySet()) {
            SortedSet<Integer> have = partitions.get(e.getKey());
            if (have == null || !have.containsAll(e.getValue())) return false;
        }
        return true;
    }

    boolean contains(String topic, int partition) {
        SortedSet<Integer> have = partitions.get(topic);
        return have != null && have.contains(partition);
    }
}
