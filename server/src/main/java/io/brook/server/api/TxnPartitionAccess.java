package io.brook.server.api;

import io.brook.coordinator.txn.TransactionCoordinator;
import io.brook.server.node.TxnPeers;
import io.brook.server.topic.Topics;
import io.brook.storage.Log;
import io.brook.wire.protocol.Errors;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * How a partition leader asks a producer's transaction coordinator about its transactional
 * writes (KIP-890): whether a partition is already part of the producer's ongoing transaction, and
 * the request that adds it (transactions V2) or verifies it (classic producers). One of two kinds:
 *
 * <ul>
 *   <li>{@link #local}: the coordinator runs on this node (always on a single node); asked in
 *       process, its view of the open transactions is exact;</li>
 *   <li>{@link #remote}: in a cluster, the coordinator is the node leading the transactional id's
 *       partition of {@code __transaction_state}; asked through {@link TxnPeers} (AddPartitionsToTxn
 *       v4 {@code verify_only}, or v5), as Kafka's partition leaders ask. A partition is taken as
 *       part of the transaction without asking when its log has the producer's transaction open at
 *       that epoch (a batch of it was appended after an earlier verification, no marker since), as
 *       Kafka skips the verification then.</li>
 * </ul>
 */
interface TxnPartitionAccess {

    /** Whether the partition is part of the producer's ongoing transaction at this epoch (no need to ask). */
    boolean inTransaction(long producerId, short epoch, String topic, int partition);

    /** Whether this epoch of the producer is known to be fenced by a newer one. */
    boolean fenced(long producerId, short epoch, String topic, int partition);

    /** Adds (or, for a verifying access, verifies) the partitions: each one's error, NONE when it is in the transaction. */
    CompletableFuture<Map<String, Map<Integer, Errors>>> add(String transactionalId, long producerId, short epoch,
            Map<String, Set<Integer>> partitions);

    /** The coordinator on this node: transactions V2 adds. */
    static TxnPartitionAccess local(TransactionCoordinator txns) {
        return new TxnPartitionAccess() {
            @Override
            public boolean inTransaction(long producerId, short epoch, String topic, int partition) {
                return txns.inOngoingTransaction(producerId, epoch, topic, partition);
            }

            @Override
            public boolean fenced(long producerId, short epoch, String topic, int partition) {
                return txns.verifyAppend(producerId, epoch, topic, partition) == Errors.INVALID_PRODUCER_EPOCH;
            }

            @Override
            public CompletableFuture<Map<String, Map<Integer, Errors>>> add(String transactionalId, long producerId,
                    short epoch, Map<String, Set<Integer>> partitions) {
                return txns.addPartitions(transactionalId, producerId, epoch, partitions,
                        TransactionCoordinator.CLIENT_VERSION_V2).thenApply(e -> each(partitions, e));
            }
        };
    }

    /**
     * The coordinator on node {@code coordinator} ({@link TxnPeers#NO_LEADER} when none is known
     * now: every question then fails, which the produce path answers with a retriable error).
     */
    static TxnPartitionAccess remote(TxnPeers peers, int coordinator, boolean verifyOnly, Topics topics) {
        return new TxnPartitionAccess() {
            @Override
            public boolean inTransaction(long producerId, short epoch, String topic, int partition) {
                Log log = topics.log(topic, partition);
                return log != null && log.inOpenTransaction(producerId, epoch);
            }

            @Override
            public boolean fenced(long producerId, short epoch, String topic, int partition) {
                return false;
            }

            @Override
            public CompletableFuture<Map<String, Map<Integer, Errors>>> add(String transactionalId, long producerId,
                    short epoch, Map<String, Set<Integer>> partitions) {
                if (coordinator < 0) {
                    return CompletableFuture.failedFuture(new IllegalStateException(
                            "the coordinator of transactional id " + transactionalId + " is not known now"));
                }
                return peers.addPartitions(coordinator, transactionalId, producerId, epoch, verifyOnly, partitions);
            }
        };
    }

    /** {@code e} for every partition. */
    static Map<String, Map<Integer, Errors>> each(Map<String, ? extends Set<Integer>> partitions, Errors e) {
        Map<String, Map<Integer, Errors>> out = new LinkedHashMap<>();
        partitions.forEach((t, ps) -> ps.forEach(p -> out.computeIfAbsent(t, k -> new LinkedHashMap<>()).put(p, e)));
        return out;
    }
}
