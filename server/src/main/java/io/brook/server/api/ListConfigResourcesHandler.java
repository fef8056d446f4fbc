package io.brook.server.api;

import io.brook.server.config.GroupConfigStore;
import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.telemetry.ClientTelemetry;
import io.brook.server.topic.Topic;
import io.brook.wire.message.ListConfigResourcesRequest;
import io.brook.wire.message.ListConfigResourcesResponse;
import io.brook.wire.message.ListConfigResourcesResponse.ConfigResource;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * ListConfigResources (key 74; ListClientMetricsResources before KIP-1142). v0 lists the client
 * metrics subscriptions; v1 lists the resources of the types asked for (none asked: all): topics,
 * this broker (as BROKER and BROKER_LOGGER), client metrics subscriptions, and the groups that
 * have settings of their own ({@link GroupConfigStore}). Another type is INVALID_REQUEST.
 */
final class ListConfigResourcesHandler implements ApiHandler<ListConfigResourcesRequest> {

    static final byte RESOURCE_CLIENT_METRICS = 16;
    static final byte RESOURCE_GROUP = 32;
    private static final Set<Byte> KNOWN = Set.of(DescribeConfigsHandler.RESOURCE_TOPIC,
            DescribeConfigsHandler.RESOURCE_BROKER, BrokerLoggers.RESOURCE_BROKER_LOGGER, RESOURCE_CLIENT_METRICS,
            RESOURCE_GROUP);

    private final BrokerContext broker;
    private final ClientTelemetry telemetry;
    private final GroupConfigStore groupConfigs;

    ListConfigResourcesHandler(BrokerContext broker, ClientTelemetry telemetry, GroupConfigStore groupConfigs) {
        this.broker = broker;
        this.telemetry = telemetry;
        this.groupConfigs = groupConfigs;
    }

    @Override
    public void handle(RequestContext ctx, ListConfigResourcesRequest request) {
        List<Byte> types = ctx.apiVersion() == 0 ? List.of(RESOURCE_CLIENT_METRICS) : request.resourceTypes();
        for (byte t : types) {
            if (!KNOWN.contains(t)) {
                ctx.respond(new ListConfigResourcesResponse().errorCode(Errors.INVALID_REQUEST.code()));
                return;
            }
        }
        boolean all = types.isEmpty();
        List<ConfigResource> out = new ArrayList<>();
        if (all || types.contains(DescribeConfigsHandler.RESOURCE_TOPIC)) {
            for (Topic t : broker.topics().all()) {
                out.add(new ConfigResource().resourceName(t.name()).resourceType(DescribeConfigsHandler.RESOURCE_TOPIC));
            }
        }
        for (byte t : new byte[] {DescribeConfigsHandler.RESOURCE_BROKER, BrokerLoggers.RESOURCE_BROKER_LOGGER}) {
            if (all || types.contains(t)) {
                out.add(new ConfigResource().resourceName(Integer.toString(broker.nodeId())).resourceType(t));
            }
        }
        if (all || types.contains(RESOURCE_CLIENT_METRICS)) {
            for (String name : telemetry.subscriptionNames()) {
                out.add(new ConfigResource().resourceName(name).resourceType(RESOURCE_CLIENT_METRICS));
            }
        }
        if (all || types.contains(RESOURCE_GROUP)) {
            for (String group : groupConfigs.all().keySet()) {
                out.add(new ConfigResource().resourceName(group).resourceType(RESOURCE_GROUP));
            }
        }
        ctx.respond(new ListConfigResourcesResponse().errorCode(Errors.NONE.code()).configResources(out));
    }
}
