package io.brook.server.api;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.node.ClusterAdminException;
import io.brook.server.node.ClusterView;
import io.brook.wire.message.UnregisterBrokerRequest;
import io.brook.wire.message.UnregisterBrokerResponse;
import io.brook.wire.protocol.Errors;

/**
 * UnregisterBroker (key 64, {@code kafka-cluster.sh unregister --id N}): the controller forgets a
 * broker's registration (docs/cluster.md, section 6b), fencing it first if it is live, as Kafka's
 * controller does; a broker that still runs registers again at its next heartbeat. Any node asks
 * the controller, as Kafka's brokers forward the request to it, and answers once its own image
 * has the change. BROKER_ID_NOT_REGISTERED for an id the controller does not know.
 *
 * <p>A single node knows only itself: another id is BROKER_ID_NOT_REGISTERED, its own
 * INVALID_REQUEST (it cannot forget itself while it serves).
 */
final class UnregisterBrokerHandler implements ApiHandler<UnregisterBrokerRequest> {

    private final BrokerContext broker;

    UnregisterBrokerHandler(BrokerContext broker) {
        this.broker = broker;
    }

    @Override
    public void handle(RequestContext ctx, UnregisterBrokerRequest request) {
        ClusterView cluster = broker.cluster();
        if (cluster == null) {
            ctx.respond(request.brokerId() == broker.nodeId()
                    ? answer(Errors.INVALID_REQUEST, "A single Brook node cannot unregister itself.")
                    : answer(Errors.BROKER_ID_NOT_REGISTERED, "Broker ID " + request.brokerId()
                            + " is not currently registered"));
            return;
        }
        cluster.unregisterBroker(request.brokerId()).whenComplete((v, e) -> ctx.respond(e == null
                ? answer(Errors.NONE, null)
                : answer(ClusterAdminException.errorOf(e), ClusterAdminException.messageOf(e))));
    }

    private static UnregisterBrokerResponse answer(Errors error, String message) {
        return new UnregisterBrokerResponse().errorCode(error.code()).errorMessage(message);
    }
}
