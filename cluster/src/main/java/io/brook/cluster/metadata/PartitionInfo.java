package io.brook.cluster.metadata;

import java.util.List;

/**
 * One partition's replica state: its replicas (in preference order), ISR, leader ({@link
 * MetadataRecord#NO_LEADER} if none), leader epoch (bumped when the leader changes) and partition
 * epoch (bumped on every change). Immutable.
 */
public record PartitionInfo(List<Integer> replicas, List<Integer> isr, int leader, int leaderEpoch,
                            int partitionEpoch) {
    public PartitionInfo {
        replicas = List.copyOf(replicas);
        isr = List.copyOf(isr);
    }

    /** The state after a change of leader and ISR, with the epochs bumped as the change requires. */
    PartitionInfo change(int newLeader, List<Integer> newIsr) {
        int newLeaderEpoch = newLeader == leader ? leaderEpoch : leaderEpoch + 1;
        return new PartitionInfo(replicas, newIsr, newLeader, newLeaderEpoch, partitionEpoch + 1);
    }
}
