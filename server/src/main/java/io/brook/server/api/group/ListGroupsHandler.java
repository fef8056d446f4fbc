package io.brook.server.api.group;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.wire.message.ListGroupsRequest;
import io.brook.wire.message.ListGroupsResponse;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.Errors;

/**
 * ListGroups (key 16): every group this coordinator knows. Handed to the group coordinator; see
 * {@link GroupRequests}.
 */
public final class ListGroupsHandler implements ApiHandler<ListGroupsRequest> {

    private final BrokerContext broker;

    public ListGroupsHandler(BrokerContext broker) {
        this.broker = broker;
    }

    @Override
    public void handle(RequestContext ctx, ListGroupsRequest request) {
        ctx.respondWhenDone(GroupRequests.coordinator(broker).listGroups(request, ctx.apiVersion()));
    }
}
