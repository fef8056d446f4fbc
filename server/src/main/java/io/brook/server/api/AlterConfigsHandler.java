package io.brook.server.api;

import io.brook.server.api.TopicConfigChange.Failure;
import io.brook.server.config.GroupConfigStore;
import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.security.BrokerSecurity;
import io.brook.server.telemetry.ClientTelemetry;
import io.brook.wire.message.AlterConfigsRequest;
import io.brook.wire.message.AlterConfigsResponse;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * AlterConfigs (key 33), the API before KIP-339, for topic configs: the given configs replace all
 * of the topic's overrides; for a broker resource all of the scope's dynamic settings
 * ({@link BrokerConfigChange#replace}); for client metrics subscriptions, {@link ClientMetricsResources};
 * for groups' own settings, {@link GroupConfigResources}.
 * Apache Kafka 4.x still serves it, and kafkajs and librdkafka use it.
 */
final class AlterConfigsHandler implements ApiHandler<AlterConfigsRequest> {

    private final BrokerContext broker;
    private final ClientTelemetry telemetry;
    private final BrokerSecurity security;
    private final GroupConfigStore groupConfigs;

    AlterConfigsHandler(BrokerContext broker, ClientTelemetry telemetry, BrokerSecurity security,
            GroupConfigStore groupConfigs) {
        this.broker = broker;
        this.telemetry = telemetry;
        this.groupConfigs = groupConfigs;
        this.security = security;
    }

    @Override
    public void handle(RequestContext ctx, AlterConfigsRequest request) {
        List<CompletableFuture<AlterConfigsResponse.AlterConfigsResourceResponse>> out = new ArrayList<>();
        Set<String> duplicates = TopicConfigChange.duplicateResources(request.resources().stream()
                .map(r -> TopicConfigChange.resourceKey(r.resourceType(), r.resourceName())).toList());
        for (AlterConfigsRequest.AlterConfigsResource res : request.resources()) {
            boolean clientMetrics = res.resourceType() == ClientMetricsResources.RESOURCE_CLIENT_METRICS;
            boolean group = res.resourceType() == GroupConfigResources.RESOURCE_GROUP;
            boolean brokerResource = res.resourceType() == DescribeConfigsHandler.RESOURCE_BROKER;
            Failure err = duplicates.contains(TopicConfigChange.resourceKey(res.resourceType(), res.resourceName()))
                    ? TopicConfigChange.DUPLICATE_RESOURCE
                    : clientMetrics ? ClientMetricsResources.replace(telemetry, res, request.validateOnly())
                    : brokerResource || group ? null
                    : TopicConfigChange.checkTopic(broker, res.resourceType(), res.resourceName());
            CompletableFuture<Failure> result = null;
            if (err == null && group) {
                result = GroupConfigResources.replace(groupConfigs, broker.config(), res, request.validateOnly());
            } else if (err == null && !clientMetrics) {
                Map<String, String> next = new LinkedHashMap<>();
                for (AlterConfigsRequest.AlterableConfig c : res.configs()) {
                    if (c.value() == null) {
                        err = new Failure(Errors.INVALID_REQUEST, "Null value not supported for " + c.name());
                        break;
                    }
                    if (next.put(c.name(), c.value()) != null) {
                        err = new Failure(Errors.INVALID_REQUEST, "Error due to duplicate config keys");
                        break;
                    }
                }
                if (err == null) {
                    result = brokerResource
                            ? CompletableFuture.completedFuture(BrokerConfigChange.replace(broker, security,
                                    res.resourceName(), next, request.validateOnly()))
                            : TopicConfigChange.applyAsync(broker, res.resourceName(), next, request.validateOnly());
                }
            }
            out.add((result != null ? result : CompletableFuture.completedFuture(err)).thenApply(f -> {
                AlterConfigsResponse.AlterConfigsResourceResponse r =
                        new AlterConfigsResponse.AlterConfigsResourceResponse()
                                .resourceType(res.resourceType()).resourceName(res.resourceName());
                return f == null ? r.errorCode(Errors.NONE.code()).errorMessage(null)
                        : r.errorCode(f.error().code()).errorMessage(f.message());
            }));
        }
        // in cluster mode a topic's change waits for the controller: answer when all are decided
        CompletableFuture.allOf(out.toArray(new CompletableFuture<?>[0])).whenComplete((v, e) ->
                ctx.respond(new AlterConfigsResponse().responses(out.stream().map(CompletableFuture::join).toList())));
    }
}
