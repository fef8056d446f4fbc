package io.brook.server.api.group;

import io.brook.server.config.Listener;
import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.wire.message.FindCoordinatorRequest;
import io.brook.wire.message.FindCoordinatorResponse;
import io.brook.wire.message.FindCoordinatorResponse.Coordinator;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.List;

/**
 * FindCoordinator (key 10): this node coordinates every group and transactional id. v0–3 ask for one
 * key, v4+ for a batch ({@code coordinator_keys}) answered key by key.
 *
 * <p>Key types: 0 (group) and 1 (transaction) → this node, COORDINATOR_NOT_AVAILABLE while that
 * coordinator is not running; an empty transactional id → INVALID_REQUEST, as in Kafka. 2 (share
 * groups, KIP-932) and unknown types → INVALID_REQUEST.
 */
public final class FindCoordinatorHandler implements ApiHandler<FindCoordinatorRequest> {

    static final byte KEY_TYPE_GROUP = 0;
    static final byte KEY_TYPE_TRANSACTION = 1;

    private final BrokerContext broker;

    public FindCoordinatorHandler(BrokerContext broker) {
        this.broker = broker;
    }

    @Override
    public void handle(RequestContext ctx, FindCoordinatorRequest request) {
        short version = ctx.apiVersion();
        byte keyType = version >= 1 ? request.keyType() : KEY_TYPE_GROUP;
        if (version < 4) {
            Coordinator c = lookup(broker, ctx.session().listenerName(), keyType, request.key());
            FindCoordinatorResponse r = new FindCoordinatorResponse().errorCode(c.errorCode()).nodeId(c.nodeId())
                    .host(c.host()).port(c.port());
            if (version >= 1) {
                r.errorMessage(c.errorMessage());
            }
            ctx.respond(r);
            return;
        }
        List<Coordinator> out = new ArrayList<>(request.coordinatorKeys().size());
        for (String key : request.coordinatorKeys()) {
            out.add(lookup(broker, ctx.session().listenerName(), keyType, key));
        }
        ctx.respond(new FindCoordinatorResponse().coordinators(out));
    }

    private static Coordinator lookup(BrokerContext broker, String listenerName, byte keyType, String key) {
        Coordinator c = new Coordinator().key(key);
        if (keyType == KEY_TYPE_GROUP) {
            if (broker.groups() == null) {
                return fail(c, Errors.COORDINATOR_NOT_AVAILABLE, "The group coordinator is not running");
            }
            Listener adv = broker.advertised(listenerName);
            return c.errorCode(Errors.NONE.code()).errorMessage(null).nodeId(broker.nodeId()).host(adv.host())
                    .port(adv.port());
        }
        if (keyType == KEY_TYPE_TRANSACTION) {
            if (key == null || key.isEmpty()) {
                return fail(c, Errors.INVALID_REQUEST, "The transactional id is empty");
            }
            if (broker.transactions() == null) {
                return fail(c, Errors.COORDINATOR_NOT_AVAILABLE, "The transaction coordinator is not running");
            }
            Listener adv = broker.advertised();
            return c.errorCode(Errors.NONE.code()).errorMessage(null).nodeId(broker.nodeId()).host(adv.host())
                    .port(adv.port());
        }
        return fail(c, Errors.INVALID_REQUEST, "Unsupported key type " + keyType);
    }

    private static Coordinator fail(Coordinator c, Errors error, String message) {
        return c.errorCode(error.code()).errorMessage(message).nodeId(-1).host("").port(-1);
    }
}
