package io.brook.server.api.group;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.wire.message.DescribeGroupsRequest;
import io.brook.wire.message.DescribeGroupsResponse;
import io.brook.wire.message.DescribeGroupsResponse.DescribedGroup;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.List;

/**
 * DescribeGroups (key 15): state, protocol and members of groups. Handed to the group coordinator;
 * see {@link GroupRequests}.
 */
public final class DescribeGroupsHandler implements ApiHandler<DescribeGroupsRequest> {

    private final BrokerContext broker;

    public DescribeGroupsHandler(BrokerContext broker) {
        this.broker = broker;
    }

    @Override
    public void handle(RequestContext ctx, DescribeGroupsRequest request) {
        ctx.respondWhenDone(GroupRequests.coordinator(broker).describeGroups(request, ctx.apiVersion()));
    }
}
