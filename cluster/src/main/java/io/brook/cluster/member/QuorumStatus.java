package io.brook.cluster.member;

import java.util.List;

/**
 * The metadata quorum as one node sees it, shaped for DescribeQuorum: the leader, its term and
 * high watermark, and each voter's and observer's log end and last contact (as the leader knows
 * them; -1 where this node does not know).
 */
public record QuorumStatus(int leaderId, long leaderEpoch, long highWatermark, List<Replica> voters,
                           List<Replica> observers) {

    public QuorumStatus {
        voters = List.copyOf(voters);
        observers = List.copyOf(observers);
    }

    /** One replica of the metadata log: its node id, log end offset and last fetch / caught-up times (ms, -1 unknown). */
    public record Replica(int nodeId, long logEndOffset, long lastFetchTimestamp, long lastCaughtUpTimestamp) {
    }
}
