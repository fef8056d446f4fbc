package io.brook.server.api.group;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.wire.message.DeleteGroupsRequest;
import io.brook.wire.message.DeleteGroupsResponse;
import io.brook.wire.message.DeleteGroupsResponse.DeletableGroupResult;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.List;

/**
 * DeleteGroups (key 42): removes empty groups and their offsets. Handed to the group coordinator;
 * see {@link GroupRequests}. v3 adds an error message per group, which Brook leaves null: its
 * error codes say all there is to say.
 */
public final class DeleteGroupsHandler implements ApiHandler<DeleteGroupsRequest> {

    private final BrokerContext broker;

    public DeleteGroupsHandler(BrokerContext broker) {
        this.broker = broker;
    }

    @Override
    public void handle(RequestContext ctx, DeleteGroupsRequest request) {
        ctx.respondWhenDone(GroupRequests.coordinator(broker).deleteGroups(request, ctx.apiVersion()));
    }
}
