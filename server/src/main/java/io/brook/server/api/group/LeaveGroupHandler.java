package io.brook.server.api.group;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.wire.message.LeaveGroupRequest;
import io.brook.wire.message.LeaveGroupResponse;
import io.brook.wire.message.LeaveGroupResponse.MemberResponse;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.List;

/**
 * LeaveGroup (key 13): members leave at once instead of at their session timeout. Handed to the
 * group coordinator; see {@link GroupRequests}.
 */
public final class LeaveGroupHandler implements ApiHandler<LeaveGroupRequest> {

    private final BrokerContext broker;

    public LeaveGroupHandler(BrokerContext broker) {
        this.broker = broker;
    }

    @Override
    public void handle(RequestContext ctx, LeaveGroupRequest request) {
        ctx.respondWhenDone(GroupRequests.coordinator(broker).leaveGroup(request, ctx.apiVersion()));
    }
}
