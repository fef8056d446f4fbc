package io.brook.cluster.raft;

/**
 * A node refused to start in the quorum because it does not belong there: its metadata directory
 * was made for another cluster or node id, or a voter it would join serves another cluster.
 */
public final class ClusterMembershipException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ClusterMembershipException(String message) {
        super(message);
    }
}
