package io.brook.server.api;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.node.ClusterAdminException;
import io.brook.server.node.ClusterView;
import io.brook.wire.message.AddRaftVoterRequest;
import io.brook.wire.message.AddRaftVoterResponse;
import io.brook.wire.protocol.Errors;

/**
 * AddRaftVoter (key 80, KIP-853; {@code kafka-metadata-quorum.sh add-controller}): makes a node
 * that follows the metadata log as a Ratis listener a voter (docs/cluster.md, section 6b). Kafka's
 * brokers forward it to the active controller; any Brook node asks the quorum's leader itself, so
 * the tool works with {@code --bootstrap-server} against any node (Brook's controller listener
 * carries Ratis traffic only, so {@code --bootstrap-controller} does not apply).
 *
 * <p>Checked first as Kafka's raft client checks it: INCONSISTENT_CLUSTER_ID for another cluster
 * id, INVALID_REQUEST for a request without a voter id and directory id or without an endpoint on
 * the controller listener (the first of {@code controller.listener.names}). Then the quorum
 * answers DUPLICATE_VOTER for a voter, VOTER_NOT_FOUND for a node that does not follow the log or
 * whose data directory has another id than the request's (KIP-853 names a voter by both).
 * The node becomes a voter at the address it follows the log at (Ratis keeps a member's first
 * address). A single node is a static quorum of one voter, which Kafka answers UNSUPPORTED_VERSION
 * (its {@code kraft.version} 0 cannot change voters); so does Brook.
 */
final class AddRaftVoterHandler implements ApiHandler<AddRaftVoterRequest> {

    private final BrokerContext broker;

    AddRaftVoterHandler(BrokerContext broker) {
        this.broker = broker;
    }

    @Override
    public void handle(RequestContext ctx, AddRaftVoterRequest request) {
        QuorumRequests.Refusal no = QuorumRequests.refusal(broker, request.clusterId(), request.voterId(),
                request.voterDirectoryId(), "Add");
        if (no != null) {
            ctx.respond(answer(no.error(), no.message()));
            return;
        }
        ClusterView cluster = broker.cluster();
        String listener = QuorumRequests.controllerListener(broker);
        boolean hasEndpoint = request.listeners().stream().anyMatch(l -> l.name().equalsIgnoreCase(listener));
        if (!hasEndpoint) {
            ctx.respond(answer(Errors.INVALID_REQUEST, "Add voter request didn't include the endpoint for the "
                    + "controller listener " + listener));
            return;
        }
        cluster.addVoter(request.voterId(), request.voterDirectoryId()).whenComplete((v, e) -> ctx.respond(e == null
                ? answer(Errors.NONE, null)
                : answer(ClusterAdminException.errorOf(e), ClusterAdminException.messageOf(e))));
    }

    private static AddRaftVoterResponse answer(Errors error, String message) {
        return new AddRaftVoterResponse().errorCode(error.code()).errorMessage(message);
    }
}
