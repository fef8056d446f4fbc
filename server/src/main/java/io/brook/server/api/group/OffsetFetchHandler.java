package io.brook.server.api.group;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.wire.message.OffsetFetchRequest;
import io.brook.wire.message.OffsetFetchResponse;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.List;

/**
 * OffsetFetch (key 9): a group's committed offsets. Handed to the group coordinator; see {@link
 * GroupRequests}.
 */
public final class OffsetFetchHandler implements ApiHandler<OffsetFetchRequest> {

    private final BrokerContext broker;

    public OffsetFetchHandler(BrokerContext broker) {
        this.broker = broker;
    }

    @Override
    public void handle(RequestContext ctx, OffsetFetchRequest request) {
        GroupRequests.reply(ctx, GroupRequests.coordinator(broker).fetchOffsets(request, ctx.apiVersion()));
    }
}
