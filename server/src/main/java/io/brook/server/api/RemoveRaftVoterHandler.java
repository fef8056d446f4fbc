package io.brook.server.api;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.node.ClusterAdminException;
import io.brook.server.node.ClusterView;
import io.brook.wire.message.RemoveRaftVoterRequest;
import io.brook.wire.message.RemoveRaftVoterResponse;
import io.brook.wire.protocol.Errors;

/**
 * RemoveRaftVoter (key 81, KIP-853; {@code kafka-metadata-quorum.sh remove-controller}): the
 * voter becomes a listener of the metadata log, as Kafka's removed controller becomes an observer
 * (docs/cluster.md, section 6b). Any node asks the quorum's leader, as Kafka's brokers forward the
 * request to the active controller.
 *
 * <p>INCONSISTENT_CLUSTER_ID for another cluster id, INVALID_REQUEST without a voter id and
 * directory id; then the quorum answers VOTER_NOT_FOUND for a node that is not a voter or whose
 * data directory has another id than the request's, and
 * INVALID_REQUEST for the last voter or a node that still leads partitions. A single node answers
 * UNSUPPORTED_VERSION, as Kafka's static quorum does.
 */
final class RemoveRaftVoterHandler implements ApiHandler<RemoveRaftVoterRequest> {

    private final BrokerContext broker;

    RemoveRaftVoterHandler(BrokerContext broker) {
        this.broker = broker;
    }

    @Override
    public void handle(RequestContext ctx, RemoveRaftVoterRequest request) {
        QuorumRequests.Refusal no = QuorumRequests.refusal(broker, request.clusterId(), request.voterId(),
                request.voterDirectoryId(), "Remove");
        if (no != null) {
            ctx.respond(answer(no.error(), no.message()));
            return;
        }
        ClusterView cluster = broker.cluster();
        cluster.removeVoter(request.voterId(), request.voterDirectoryId()).whenComplete((v, e) -> ctx.respond(e == null
                ? answer(Errors.NONE, null)
                : answer(ClusterAdminException.errorOf(e), ClusterAdminException.messageOf(e))));
    }

    private static RemoveRaftVoterResponse answer(Errors error, String message) {
        return new RemoveRaftVoterResponse().errorCode(error.code()).errorMessage(message);
    }
}
