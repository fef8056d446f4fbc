package io.brook.server.api.group;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.wire.message.JoinGroupRequest;
import io.brook.wire.message.JoinGroupResponse;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.Errors;

/**
 * JoinGroup (key 11): a member joins, or rejoins for a rebalance; the answer waits until the
 * rebalance completes. Handed to the group coordinator; see {@link GroupRequests}.
 */
public final class JoinGroupHandler implements ApiHandler<JoinGroupRequest> {

    private final BrokerContext broker;

    public JoinGroupHandler(BrokerContext broker) {
        this.broker = broker;
    }

    @Override
    public void handle(RequestContext ctx, JoinGroupRequest request) {
        ctx.respondWhenDone(GroupRequests.coordinator(broker).joinGroup(request, ctx.apiVersion(), ctx.clientId(),
                GroupRequests.clientHost(ctx.clientAddress())));
    }
}
