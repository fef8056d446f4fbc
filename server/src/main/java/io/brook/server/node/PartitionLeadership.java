package io.brook.server.node;

import io.brook.server.node.LeaderHints.Leader;
import io.brook.wire.protocol.Errors;
import java.util.Set;

/**
 * Who leads each partition, as this node knows it: what the partition APIs check before they
 * serve a partition, what the leader hints of KIP-951 name, and what the group and transaction
 * coordinators follow to own the partitions of their internal topics (docs/cluster.md, section 7).
 *
 * <p>On a single node ({@link SingleNodeLeadership}) this node leads every partition at leader
 * epoch 0. In cluster mode the metadata image says, and the answers change when the image does:
 * {@link #onChange} listeners run after every change of this node's view.
 *
 * <p>Thread-safe; every method reads an immutable view and is cheap.
 */
public interface PartitionLeadership {

    /** The partitions of {@code topic} this node leads now (empty when none, or no such topic). */
    Set<Integer> ledPartitions(String topic);

    /**
     * Runs {@code listener} after every change of leadership (and of the topics) as this node
     * sees it, on a thread of the cluster's; it must be quick and must not block. Never called on
     * a single node, where nothing changes.
     */
    void onChange(Runnable listener);

    /**
     * The leader of a partition, with its endpoint on {@code listenerName} (the listener the
     * client connected on); {@link Leader#nodeId()} -1 when the partition has no leader or does
     * not exist.
     */
    Leader leaderOf(String topic, int partition, String listenerName);

    /**
     * Whether this node may serve a partition of an existing topic to a client that names
     * {@code currentLeaderEpoch} (-1 for none), by Kafka's rules: NONE when this node leads and the
     * epoch is -1 or the leader's; NOT_LEADER_OR_FOLLOWER when another node leads or none does;
     * FENCED_LEADER_EPOCH when the client's epoch is older, UNKNOWN_LEADER_EPOCH when newer.
     */
    Errors check(String topic, int partition, int currentLeaderEpoch);

    /**
     * Whether this node serves a fetch from replica {@code replicaId} (a follower's fetch, the
     * node id of the broker that sends it) of a partition of an existing topic, by Kafka's rules:
     * NONE when this node leads, serves clients and {@code replicaId} is another replica of the
     * partition, with the epoch rule of {@link #check}; UNKNOWN_LEADER_EPOCH (a named epoch) or
     * NOT_LEADER_OR_FOLLOWER (none) for a node that is not a replica, as Kafka answers a replica
     * it does not know. In cluster mode also NONE for the new leader of a partition moved away
     * from this node, at its epoch, which reads this node's fenced log to its end
     * ({@link #drainedByNewLeader}). A single node has no followers: never NONE.
     */
    default Errors checkReplica(String topic, int partition, int replicaId, int currentLeaderEpoch) {
        return currentLeaderEpoch >= 0 ? Errors.UNKNOWN_LEADER_EPOCH : Errors.NOT_LEADER_OR_FOLLOWER;
    }

    /**
     * Whether this node led the partition until a move made another node its leader, which now
     * reads this node's log to its end: the log is fenced (it takes no more appends) and is kept
     * until the new leader has read it. A fetch from that leader is answered with the records
     * up to the high watermark, and with the high watermark itself only once it is the log's
     * end (every record durable): until then the answer names none (-1).
     */
    default boolean drainedByNewLeader(String topic, int partition) {
        return false;
    }

    /**
     * Whether the {@code bytes} of records this node, as leader, read for follower
     * {@code replicaId} (a fetch {@link #checkReplica} serves) are to be left out of the answer
     * because of Kafka's leader replication throttle: the partition is leader-throttled on this
     * node ({@code leader.replication.throttled.replicas}), the follower is not in its ISR and
     * {@code leader.replication.throttled.rate} is exceeded. When false the bytes count against
     * the rate. A single node has no followers: never.
     */
    default boolean throttledToReplica(String topic, int partition, int replicaId, long bytes) {
        return false;
    }

    /** The leader epoch of a partition this node leads, -1 otherwise. */
    int leaderEpoch(String topic, int partition);

    /** Kafka's epoch rule, shared by the implementations: {@code ours} is the epoch this node leads at. */
    static Errors checkEpoch(int ours, int currentLeaderEpoch) {
        if (currentLeaderEpoch < 0 || currentLeaderEpoch == ours) {
            return Errors.NONE;
        }
        return currentLeaderEpoch < ours ? Errors.FENCED_LEADER_EPOCH : Errors.UNKNOWN_LEADER_EPOCH;
    }
}
