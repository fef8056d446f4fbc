package io.brook.server.api;

import io.brook.server.node.BrokerContext;
import io.brook.wire.protocol.Errors;
import java.util.UUID;

/**
 * What AddRaftVoter and RemoveRaftVoter check before the quorum is asked, as Kafka's raft client
 * checks it: the cluster id (a null one is not checked), a voter id and a directory id (KIP-853:
 * every voter is named by both, the all-zero id meaning none).
 */
final class QuorumRequests {

    private static final UUID ZERO = new UUID(0, 0);

    private QuorumRequests() {
    }

    /** Why a voter request is refused before the quorum is asked. */
    record Refusal(Errors error, String message) {
    }

    /**
     * The checks AddRaftVoter and RemoveRaftVoter share ({@code verb}: "Add" or "Remove"): a single
     * node cannot change its voters (UNSUPPORTED_VERSION, as Kafka's static quorum), the cluster
     * id, the voter; null when the request may go on.
     */
    static Refusal refusal(BrokerContext broker, String clusterId, int voterId, UUID directoryId, String verb) {
        if (broker.cluster() == null) {
            return new Refusal(Errors.UNSUPPORTED_VERSION,
                    "A single Brook node is a static quorum of one voter: its voters cannot change.");
        }
        if (!sameCluster(broker, clusterId)) {
            return new Refusal(Errors.INCONSISTENT_CLUSTER_ID, "The given id \"" + clusterId
                    + "\" doesn't match the cluster id \"" + broker.clusterId() + "\"");
        }
        if (!validVoter(voterId, directoryId)) {
            return new Refusal(Errors.INVALID_REQUEST, verb + " voter request didn't include a valid voter");
        }
        return null;
    }

    /** Whether {@code clusterId} (null: not given) names this node's cluster. */
    static boolean sameCluster(BrokerContext broker, String clusterId) {
        return clusterId == null || clusterId.equals(broker.clusterId());
    }

    /** Whether the request names a voter: an id of 0 or more and a directory id that is not all zero. */
    static boolean validVoter(int voterId, UUID directoryId) {
        return voterId >= 0 && directoryId != null && !directoryId.equals(ZERO);
    }

    /** The listener the voters talk to each other on: the first of {@code controller.listener.names}. */
    static String controllerListener(BrokerContext broker) {
        return broker.config().controllerListener();
    }
}
