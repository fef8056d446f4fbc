package io.brook.server.node;

import io.brook.wire.protocol.Errors;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The other nodes of a cluster as the transaction code sees them (docs/cluster.md, section 7):
 * who coordinates a transactional id, who leads a partition, and the two requests brokers send
 * each other for transactions, Kafka's WriteTxnMarkers (coordinator to partition leader) and
 * AddPartitionsToTxn v4+ (partition leader to coordinator). Null on a single node
 * ({@link ClusterView#txnPeers()}), where everything is local.
 *
 * <p>The futures fail (with an exception, retriable) when the other node could not be asked or
 * did not answer; the Kafka errors of an answer are in its map. Any thread; the futures complete
 * on a network thread, so what follows them must not block.
 */
public interface TxnPeers {

    /** A partition's leader: none now. */
    int NO_LEADER = -1;
    /** A partition's leader: the topic or partition does not exist (any more). */
    int NO_PARTITION = -2;

    /** This node's id. */
    int nodeId();

    /** The node leading the id's partition of {@code __transaction_state} now; {@link #NO_LEADER} when none. */
    int coordinatorOf(String transactionalId);

    /** The leader of a partition now, {@link #NO_LEADER} or {@link #NO_PARTITION}. */
    int leaderOf(String topic, int partition);

    /**
     * WriteTxnMarkers to {@code node} for these partitions (all led by it, as far as this node
     * knows): each partition's error.
     */
    CompletableFuture<Map<String, Map<Integer, Errors>>> writeMarkers(int node, long producerId, short producerEpoch,
            boolean commit, boolean transactionsV2, Map<String, ? extends Set<Integer>> partitions);

    /**
     * AddPartitionsToTxn to the coordinator {@code node}: with {@code verifyOnly} (v4) whether each
     * partition is in the producer's ongoing transaction; without (v5, transactions V2) adds them.
     * Each partition's error; a top-level error is given to every partition.
     */
    CompletableFuture<Map<String, Map<Integer, Errors>>> addPartitions(int node, String transactionalId, long producerId,
            short producerEpoch, boolean verifyOnly, Map<String, ? extends Set<Integer>> partitions);
}
