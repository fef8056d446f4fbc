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
 * @param previousProducerId the producer id before the last change of producer id, or -1
 *                         (Kafka's tagged {@code PreviousProducerId}; a retried EndTxn of the
 *                         transaction that rolled the id over is recognised by it)
 * @param nextProducerId   while a transactions-V2 commit or abort that exhausted the epoch is
 *                         prepared: the producer id the producer continues with, else -1
 *                         (Kafka's tagged {@code NextProducerId})
 * @param clientVersion    the {@code transaction.version} the client used for the current
 *                         transaction: 2 when it runs transactions V2 (the epoch is bumped at
 *                         every end), else 0 (Kafka's tagged {@code ClientTransactionVersion})
 */
record TxnSnapshot(long producerId, short producerEpoch, short lastProducerEpoch, int timeoutMs, TxnState state,
                   SortedMap<String, SortedSet<Integer>> partitions, long startMs, long updateMs,
                   long previousProducerId, long nextProducerId, short clientVersion) {

    static final SortedMap<String, SortedSet<Integer>> NONE = Collections.unmodifiableSortedMap(new TreeMap<>());

    /** The {@code transaction.version} of transactions V2: the epoch is bumped at every end. */
    static final short TV2 = 2;

    TxnSnapshot {
        partitions = partitions.isEmpty() ? NONE : partitions;
    }

    /** Without the fields of transactions V2 (no previous or next producer id, client version 0). */
    TxnSnapshot(long producerId, short producerEpoch, short lastProducerEpoch, int timeoutMs, TxnState state,
                SortedMap<String, SortedSet<Integer>> partitions, long startMs, long updateMs) {
        this(producerId, producerEpoch, lastProducerEpoch, timeoutMs, state, partitions, startMs, updateMs, -1L, -1L,
                (short) 0);
    }

    /** Whether the current transaction runs transactions V2. */
    boolean isV2() {
        return clientVersion >= TV2;
    }

    TxnSnapshot withState(TxnState s, long now) {
        return new TxnSnapshot(producerId, producerEpoch, lastProducerEpoch, timeoutMs, s, partitions, startMs, now,
                previousProducerId, nextProducerId, clientVersion);
    }

    /**
     * PrepareCommit or PrepareAbort. With transactions V2 the epoch is bumped (the markers carry
     * the new epoch, so that the producer's old epoch is fenced in every partition of the
     * transaction) and {@code nextPid}, when not -1, is the producer id the producer continues
     * with because the bump reached the last epoch.
     */
    TxnSnapshot prepared(TxnState s, short version, long nextPid, long now) {
        if (version < TV2) {
            return new TxnSnapshot(producerId, producerEpoch, lastProducerEpoch, timeoutMs, s, partitions, startMs, now,
                    previousProducerId, -1L, version);
        }
        return new TxnSnapshot(producerId, (short) (producerEpoch + 1), producerEpoch, timeoutMs, s, partitions, startMs,
                now, previousProducerId, nextPid, version);
    }

    /**
     * Finished: the partitions are forgotten. A transactions-V2 transaction that exhausted the
     * epoch moves on to its next producer id at epoch 0.
     */
    TxnSnapshot completed(TxnState s, long now) {
        if (isV2() && nextProducerId >= 0) {
            return new TxnSnapshot(nextProducerId, (short) 0, producerEpoch, timeoutMs, s, NONE, startMs, now,
                    producerId, -1L, clientVersion);
        }
        short last = isV2() ? producerEpoch : lastProducerEpoch;
        return new TxnSnapshot(producerId, producerEpoch, last, timeoutMs, s, NONE, startMs, now, previousProducerId,
                -1L, clientVersion);
    }

    /** The producer id and epoch the producer continues with once this prepared transaction ends. */
    long continuingProducerId() {
        return nextProducerId >= 0 ? nextProducerId : producerId;
    }

    short continuingProducerEpoch() {
        return nextProducerId >= 0 ? 0 : producerEpoch;
    }

    /** Ongoing with {@code more} partitions; a transaction that was not ongoing starts now. */
    TxnSnapshot withPartitions(Map<String, ? extends Set<Integer>> more, long now) {
        return withPartitions(more, clientVersion, now);
    }

    /**
     * Ongoing with {@code more} partitions, added by a client of transaction version
     * {@code version}; a transaction that was not ongoing starts now, with that version.
     */
    TxnSnapshot withPartitions(Map<String, ? extends Set<Integer>> more, short version, long now) {
        boolean starts = state != TxnState.ONGOING;
        TreeMap<String, SortedSet<Integer>> merged = new TreeMap<>();
        if (!starts) {
            partitions.forEach((t, ps) -> merged.put(t, new TreeSet<>(ps)));
        }
        more.forEach((t, ps) -> merged.computeIfAbsent(t, x -> new TreeSet<>()).addAll(ps));
        TreeMap<String, SortedSet<Integer>> frozen = new TreeMap<>();
        merged.forEach((t, ps) -> frozen.put(t, Collections.unmodifiableSortedSet(ps)));
        return new TxnSnapshot(producerId, producerEpoch, lastProducerEpoch, timeoutMs, TxnState.ONGOING,
                Collections.unmodifiableSortedMap(frozen), starts ? now : startMs, now, previousProducerId, -1L,
                starts ? version : (short) Math.max(version, clientVersion));
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
