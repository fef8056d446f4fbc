package io.brook.server.api.group;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.security.Acl;
import io.brook.server.security.Authorizer;
import io.brook.wire.message.ConsumerGroupHeartbeatRequest;
import io.brook.wire.message.ConsumerGroupHeartbeatResponse;
import io.brook.wire.protocol.Errors;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * ConsumerGroupHeartbeat (key 68, KIP-848): a member of a consumer group of the new protocol joins,
 * heartbeats, reports its partitions and leaves, and receives its assignment. Handed to the group
 * coordinator; see {@link GroupRequests}. With {@code group.version} finalized below 1, or
 * {@code consumer} left out of {@code group.coordinator.rebalance.protocols}, the protocol is off
 * and every heartbeat is answered UNSUPPORTED_VERSION, as Kafka answers it. With
 * an authorizer, a pattern subscription covers only the topics the member's principal may
 * DESCRIBE, as in Kafka (the ACL check of the request itself is {@code AclChecks}').
 */
public final class ConsumerGroupHeartbeatHandler implements ApiHandler<ConsumerGroupHeartbeatRequest> {

    private final BrokerContext broker;
    private final Supplier<String> off;
    private final Authorizer authorizer;

    /**
     * @param off        why the protocol is off now, or null while it is on
     * @param authorizer the broker's authorizer (its topics filter pattern subscriptions when enabled)
     */
    public ConsumerGroupHeartbeatHandler(BrokerContext broker, Supplier<String> off, Authorizer authorizer) {
        this.broker = broker;
        this.off = off;
        this.authorizer = authorizer != null && authorizer.enabled() ? authorizer : null;
    }

    @Override
    public void handle(RequestContext ctx, ConsumerGroupHeartbeatRequest request) {
        String why = off.get();
        if (why != null) {
            ctx.respond(new ConsumerGroupHeartbeatResponse().errorCode(Errors.UNSUPPORTED_VERSION.code())
                    .errorMessage(why));
            return;
        }
        Predicate<String> mayDescribe = null;
        if (authorizer != null) {
            var principal = ctx.session().principal();
            String host = ctx.clientHost();
            mayDescribe = topic -> authorizer.authorize(principal, host, Acl.DESCRIBE, Acl.TOPIC, topic);
        }
        ctx.respondWhenDone(GroupRequests.coordinator(broker).consumerGroupHeartbeat(request, ctx.apiVersion(),
                ctx.clientId(), GroupRequests.clientHost(ctx.clientAddress()), mayDescribe));
    }
}
