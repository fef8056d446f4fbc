package io.brook.server.node;

import java.util.List;
import java.util.UUID;

/**
 * The metadata quorum as one node of a cluster sees it, for DescribeQuorum (key 55): the leader
 * (the controller) and its term, the commit index as high watermark, each voter's and observer's
 * log end and last contact times (-1 where this node does not know), and each voter's controller
 * listener.
 *
 * @param leaderId the leader's node id, -1 while this node knows none
 */
public record MetadataQuorum(int leaderId, long leaderEpoch, long highWatermark, List<Replica> voters,
                             List<Replica> observers, List<VoterEndpoint> endpoints) {

    /** No leader known, nothing known of the voters. */
    public static final MetadataQuorum UNKNOWN = new MetadataQuorum(-1, -1, -1, List.of(), List.of(), List.of());

    public MetadataQuorum {
        voters = List.copyOf(voters);
        observers = List.copyOf(observers);
        endpoints = List.copyOf(endpoints);
    }

    /**
     * One replica of the metadata log: its log end offset, last fetch / caught-up times (ms, -1
     * unknown) and its data directory id (KIP-853; null while the node has not reported one).
     */
    public record Replica(int nodeId, long logEndOffset, long lastFetchTimestamp, long lastCaughtUpTimestamp,
                          UUID directoryId) {

        /** A replica whose directory id is not known. */
        public Replica(int nodeId, long logEndOffset, long lastFetchTimestamp, long lastCaughtUpTimestamp) {
            this(nodeId, logEndOffset, lastFetchTimestamp, lastCaughtUpTimestamp, null);
        }
    }

    /** A voter's controller listener: the first of {@code controller.listener.names} at its {@code controller.quorum.voters} address. */
    public record VoterEndpoint(int nodeId, String listener, String host, int port) {
    }
}
