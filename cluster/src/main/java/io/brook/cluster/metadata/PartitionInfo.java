package io.brook.cluster.metadata;

import java.util.List;

/**
 * One partition's replica state: its replicas (in preference order), ISR, leader ({@link
 * MetadataRecord#NO_LEADER} if none), leader epoch (bumped when the leader changes), partition
 * epoch (bumped on every change) and, while a reassignment is under way, the replicas being added
 * and removed (as Kafka's PartitionRegistration: {@code replicas} then holds the target replicas
 * followed by the ones being removed; both lists are empty otherwise). Immutable.
 */
public record PartitionInfo(List<Integer> replicas, List<Integer> isr, int leader, int leaderEpoch,
                            int partitionEpoch, List<Integer> addingReplicas, List<Integer> removingReplicas) {
    public PartitionInfo {
        replicas = List.copyOf(replicas);
        isr = List.copyOf(isr);
        addingReplicas = List.copyOf(addingReplicas);
        removingReplicas = List.copyOf(removingReplicas);
    }

    /** A partition that no reassignment is moving. */
    public PartitionInfo(List<Integer> replicas, List<Integer> isr, int leader, int leaderEpoch, int partitionEpoch) {
        this(replicas, isr, leader, leaderEpoch, partitionEpoch, List.of(), List.of());
    }

    /** Whether a reassignment is under way. */
    public boolean reassigning() {
        return !addingReplicas.isEmpty() || !removingReplicas.isEmpty();
    }

    /**
     * The replicas the partition had before its reassignment started (its replicas when none is
     * under way): what a cancelled reassignment returns to.
     */
    public List<Integer> originalReplicas() {
        return replicas.stream().filter(r -> !addingReplicas.contains(r)).toList();
    }

    /** The replicas the reassignment moves to (its replicas when none is under way). */
    public List<Integer> targetReplicas() {
        return replicas.stream().filter(r -> !removingReplicas.contains(r)).toList();
    }

    /** The state after a change of leader and ISR, with the epochs bumped as the change requires. */
    PartitionInfo change(int newLeader, List<Integer> newIsr) {
        int newLeaderEpoch = newLeader == leader ? leaderEpoch : leaderEpoch + 1;
        return new PartitionInfo(replicas, newIsr, newLeader, newLeaderEpoch, partitionEpoch + 1, addingReplicas,
                removingReplicas);
    }

    /** The state after a reassignment step replaced the replicas, leader and ISR. */
    PartitionInfo reassign(List<Integer> newReplicas, List<Integer> newIsr, int newLeader, List<Integer> adding,
                           List<Integer> removing) {
        int newLeaderEpoch = newLeader == leader ? leaderEpoch : leaderEpoch + 1;
        return new PartitionInfo(newReplicas, newIsr, newLeader, newLeaderEpoch, partitionEpoch + 1, adding, removing);
    }
}
