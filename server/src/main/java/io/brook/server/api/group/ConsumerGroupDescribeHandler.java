package io.brook.server.api.group;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.wire.message.ConsumerGroupDescribeRequest;
import io.brook.wire.message.ConsumerGroupDescribeResponse;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * ConsumerGroupDescribe (key 69, KIP-848): consumer groups of the new protocol with their epochs,
 * members and assignments; any other group id is GROUP_ID_NOT_FOUND. Handed to the group
 * coordinator; see {@link GroupRequests}. While the protocol is off (see
 * {@link ConsumerGroupHeartbeatHandler}) every group is answered UNSUPPORTED_VERSION, as Kafka
 * answers it, and the admin client falls back to DescribeGroups.
 */
public final class ConsumerGroupDescribeHandler implements ApiHandler<ConsumerGroupDescribeRequest> {

    private final BrokerContext broker;
    private final Supplier<String> off;

    /** @param off why the protocol is off now, or null while it is on */
    public ConsumerGroupDescribeHandler(BrokerContext broker, Supplier<String> off) {
        this.broker = broker;
        this.off = off;
    }

    @Override
    public void handle(RequestContext ctx, ConsumerGroupDescribeRequest request) {
        String why = off.get();
        if (why != null) {
            List<ConsumerGroupDescribeResponse.DescribedGroup> groups = new ArrayList<>(request.groupIds().size());
            for (String id : request.groupIds()) {
                groups.add(new ConsumerGroupDescribeResponse.DescribedGroup().groupId(id == null ? "" : id)
                        .errorCode(Errors.UNSUPPORTED_VERSION.code()).errorMessage(why).groupState("").assignorName(""));
            }
            ctx.respond(new ConsumerGroupDescribeResponse().groups(groups));
            return;
        }
        ctx.respondWhenDone(GroupRequests.coordinator(broker).consumerGroupDescribe(request, ctx.apiVersion()));
    }
}
