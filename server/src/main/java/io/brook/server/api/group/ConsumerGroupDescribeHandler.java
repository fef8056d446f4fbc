package io.brook.server.api.group;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.wire.message.ConsumerGroupDescribeRequest;

/**
 * ConsumerGroupDescribe (key 69, KIP-848): consumer groups of the new protocol with their epochs,
 * members and assignments; any other group id is GROUP_ID_NOT_FOUND. Handed to the group
 * coordinator; see {@link GroupRequests}.
 */
public final class ConsumerGroupDescribeHandler implements ApiHandler<ConsumerGroupDescribeRequest> {

    private final BrokerContext broker;

    public ConsumerGroupDescribeHandler(BrokerContext broker) {
        this.broker = broker;
    }

    @Override
    public void handle(RequestContext ctx, ConsumerGroupDescribeRequest request) {
        ctx.respondWhenDone(GroupRequests.coordinator(broker).consumerGroupDescribe(request, ctx.apiVersion()));
    }
}
