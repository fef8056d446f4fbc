package io.brook.server.api.group;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.wire.message.HeartbeatRequest;
import io.brook.wire.message.HeartbeatResponse;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.Errors;

/**
 * Heartbeat (key 12): keeps a member's session alive and tells it of a rebalance. Handed to the
 * group coordinator; see {@link GroupRequests}.
 */
public final class HeartbeatHandler implements ApiHandler<HeartbeatRequest> {

    private final BrokerContext broker;

    public HeartbeatHandler(BrokerContext broker) {
        this.broker = broker;
    }

    @Override
    public void handle(RequestContext ctx, HeartbeatRequest request) {
        ctx.respondWhenDone(GroupRequests.coordinator(broker).heartbeat(request, ctx.apiVersion()));
    }
}
