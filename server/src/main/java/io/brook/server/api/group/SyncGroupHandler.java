package io.brook.server.api.group;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.wire.message.SyncGroupRequest;
import io.brook.wire.message.SyncGroupResponse;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.Errors;

/**
 * SyncGroup (key 14): the leader hands out the assignment; every member waits for its own. Handed
 * to the group coordinator; see {@link GroupRequests}.
 */
public final class SyncGroupHandler implements ApiHandler<SyncGroupRequest> {

    private final BrokerContext broker;

    public SyncGroupHandler(BrokerContext broker) {
        this.broker = broker;
    }

    @Override
    public void handle(RequestContext ctx, SyncGroupRequest request) {
        ctx.respondWhenDone(GroupRequests.coordinator(broker).syncGroup(request, ctx.apiVersion()));
    }
}
