package io.brook.server.node;

import io.brook.coordinator.txn.TxnMarkers;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transaction coordinator's markers, written where each partition's leader is: on a single
 * node (and for the partitions this node leads) into its own logs ({@link PartitionMarkers}); in a
 * cluster, for the partitions other nodes lead, as one WriteTxnMarkers per node through
 * {@link TxnPeers} (docs/cluster.md, section 7), as Kafka's marker channel manager sends them.
 *
 * <p>The future completes once every partition's marker is durable on its leader. A partition
 * whose topic no longer exists counts as done; so does one whose leader answers
 * INVALID_PRODUCER_EPOCH (a newer epoch's marker ends what is open there), as locally. Anything
 * else (no leader now, NOT_LEADER_OR_FOLLOWER, a node that does not answer) fails the future,
 * and the coordinator writes the markers again after a back-off (100 ms doubling to 10 s),
 * looking each partition's leader up again; a marker written twice is harmless.
 *
 * <p>Threading: any thread; {@link #useCluster} once, at cluster start, before markers cross nodes.
 */
public final class RoutedTxnMarkers implements TxnMarkers {
    private static final Logger LOG = LoggerFactory.getLogger(RoutedTxnMarkers.class);

    private final PartitionMarkers local;
    private volatile TxnPeers peers;

    public RoutedTxnMarkers(PartitionMarkers local) {
        this.local = local;
    }

    /** From now on, partitions other nodes lead get their markers through {@code peers}. */
    void useCluster(TxnPeers peers) {
        this.peers = peers;
    }

    @Override
    public CompletableFuture<Void> write(long producerId, short producerEpoch, boolean commit, boolean transactionsV2,
            Map<String, SortedSet<Integer>> partitions) {
        TxnPeers p = peers;
        if (p == null) {
            return local.write(producerId, producerEpoch, commit, transactionsV2, partitions);
        }
        Map<Integer, Map<String, SortedSet<Integer>>> byLeader = new TreeMap<>();
        List<String> leaderless = new ArrayList<>();
        partitions.forEach((topic, ps) -> {
            for (int partition : ps) {
                int leader = p.leaderOf(topic, partition);
                if (leader == TxnPeers.NO_PARTITION) {
                    continue; // the topic is gone: nothing left to close
                }
                if (leader == TxnPeers.NO_LEADER) {
                    leaderless.add(topic + "-" + partition);
                    continue;
                }
                byLeader.computeIfAbsent(leader, k -> new TreeMap<>()).computeIfAbsent(topic, k -> new TreeSet<>())
                        .add(partition);
            }
        });
        List<CompletableFuture<Void>> all = new ArrayList<>(byLeader.size());
        byLeader.forEach((node, ps) -> {
            if (node == p.nodeId()) {
                all.add(local.write(producerId, producerEpoch, commit, transactionsV2, ps));
            } else {
                all.add(p.writeMarkers(node, producerId, producerEpoch, commit, transactionsV2, ps)
                        .thenAccept(errors -> checkAnswer(p, node, producerId, producerEpoch, errors)));
            }
        });
        CompletableFuture<Void> written = CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0]));
        if (leaderless.isEmpty()) {
            return written;
        }
        return written.thenCompose(v -> CompletableFuture.failedFuture(
                new IllegalStateException("no leader now for " + leaderless)));
    }

    /** Fails (for a retry) unless every partition of a node's answer is done. */
    private static void checkAnswer(TxnPeers p, int node, long producerId, short producerEpoch,
            Map<String, Map<Integer, Errors>> errors) {
        List<String> failed = new ArrayList<>();
        errors.forEach((topic, ps) -> ps.forEach((partition, e) -> {
            if (e == Errors.NONE) {
                return;
            }
            if (e == Errors.INVALID_PRODUCER_EPOCH) {
                LOG.warn("{}-{}: marker of producer {} epoch {} is older than the partition's epoch: skipped", topic,
                        partition, producerId, producerEpoch);
                return;
            }
            if (e == Errors.UNKNOWN_TOPIC_OR_PARTITION && p.leaderOf(topic, partition) == TxnPeers.NO_PARTITION) {
                return; // deleted meanwhile
            }
            failed.add(topic + "-" + partition + ": " + e);
        }));
        if (!failed.isEmpty()) {
            throw new IllegalStateException("node " + node + " did not write the markers of " + failed);
        }
    }
}
