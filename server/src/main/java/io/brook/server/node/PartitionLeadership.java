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
