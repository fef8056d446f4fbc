package io.brook.server.api;

import io.brook.server.api.TopicConfigChange.Failure;
import io.brook.server.config.GroupConfigStore;
import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.node.ClusterView;
import io.brook.server.security.BrokerSecurity;
import io.brook.server.telemetry.ClientTelemetry;
import io.brook.server.topic.Topic;
import io.brook.server.topic.TopicConfigResolver;
import io.brook.wire.message.IncrementalAlterConfigsRequest;
import io.brook.wire.message.IncrementalAlterConfigsRequest.AlterConfigsResource;
import io.brook.wire.message.IncrementalAlterConfigsRequest.AlterableConfig;
import io.brook.wire.message.IncrementalAlterConfigsResponse;
import io.brook.wire.message.IncrementalAlterConfigsResponse.AlterConfigsResourceResponse;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * IncrementalAlterConfigs (key 44, KIP-339) for topic configs: SET, DELETE, APPEND and SUBTRACT
 * (the last two for list configs only) applied to the topic's current overrides, then validated
 * and stored as a whole. In cluster mode the current overrides are this node's image's, which may
 * miss a change another node just made: the controller stores the result only if its overrides
 * are still those (compare-and-set), and a change that lost that race is computed again from the
 * newer image (after 20 ms, doubling up to 500 ms, for up to 30 s), so that two changes of one
 * topic made at once on two nodes both take effect. For broker resources, the settings that may
 * change at run time ({@link BrokerConfigChange}); for client metrics subscriptions, {@link
 * ClientMetricsResources}; for groups' own settings, {@link GroupConfigResources}.
 */
final class IncrementalAlterConfigsHandler implements ApiHandler<IncrementalAlterConfigsRequest> {

    static final byte OP_SET = 0;
    static final byte OP_DELETE = 1;
    static final byte OP_APPEND = 2;
    static final byte OP_SUBTRACT = 3;

    /** How long a change that lost a race with another node's is computed again (Kafka's request time-out). */
    private static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final long FIRST_RETRY_MS = 20;
    private static final long MAX_RETRY_MS = 500;

    private final BrokerContext broker;
    private final ClientTelemetry telemetry;
    private final BrokerSecurity security;
    private final GroupConfigStore groupConfigs;

    IncrementalAlterConfigsHandler(BrokerContext broker, ClientTelemetry telemetry, BrokerSecurity security,
            GroupConfigStore groupConfigs) {
        this.broker = broker;
        this.telemetry = telemetry;
        this.groupConfigs = groupConfigs;
        this.security = security;
    }

    @Override
    public void handle(RequestContext ctx, IncrementalAlterConfigsRequest request) {
        List<CompletableFuture<AlterConfigsResourceResponse>> out = new ArrayList<>();
        Set<String> duplicates = TopicConfigChange.duplicateResources(request.resources().stream()
                .map(r -> TopicConfigChange.resourceKey(r.resourceType(), r.resourceName())).toList());
        for (AlterConfigsResource res : request.resources()) {
            Failure err;
            CompletableFuture<Failure> asyncChange = null;
            if (duplicates.contains(TopicConfigChange.resourceKey(res.resourceType(), res.resourceName()))) {
                err = TopicConfigChange.DUPLICATE_RESOURCE;
            } else if (res.resourceType() == DescribeConfigsHandler.RESOURCE_BROKER) {
                err = BrokerConfigChange.alter(broker, security, res, request.validateOnly());
            } else if (res.resourceType() == BrokerLoggers.RESOURCE_BROKER_LOGGER) {
                err = BrokerLoggers.alter(broker, res, request.validateOnly());
            } else if (res.resourceType() == ClientMetricsResources.RESOURCE_CLIENT_METRICS) {
                err = ClientMetricsResources.alter(telemetry, res, request.validateOnly());
            } else if (res.resourceType() == GroupConfigResources.RESOURCE_GROUP) {
                err = null;
                asyncChange = GroupConfigResources.alter(groupConfigs, broker.config(), res, request.validateOnly());
            } else {
                err = TopicConfigChange.checkTopic(broker, res.resourceType(), res.resourceName());
                if (err == null) {
                    asyncChange = alter(broker, res, request.validateOnly());
                }
            }
            out.add((asyncChange != null ? asyncChange : CompletableFuture.completedFuture(err))
                    .thenApply(f -> response(res.resourceType(), res.resourceName(), f)));
        }
        // in cluster mode a topic's change waits for the controller: answer when all are decided
        CompletableFuture.allOf(out.toArray(new CompletableFuture<?>[0])).whenComplete((v, e) -> ctx.respond(
                new IncrementalAlterConfigsResponse().responses(out.stream().map(CompletableFuture::join).toList())));
    }

    private static CompletableFuture<Failure> alter(BrokerContext broker, AlterConfigsResource res,
            boolean validateOnly) {
        return alter(broker, res, validateOnly, System.nanoTime() + RETRY_NANOS, FIRST_RETRY_MS);
    }

    private static CompletableFuture<Failure> alter(BrokerContext broker, AlterConfigsResource res,
            boolean validateOnly, long deadlineNanos, long backoffMs) {
        Topic t = broker.topics().get(res.resourceName());
        ClusterView.TopicState state = broker.cluster() == null ? null : broker.cluster().topic(res.resourceName());
        if (t == null || (broker.cluster() != null && state == null)) {
            return CompletableFuture.completedFuture(new Failure(Errors.UNKNOWN_TOPIC_OR_PARTITION,
                    "Topic " + res.resourceName() + " does not exist."));
        }
        // in cluster mode the base is the image's, the very map the controller compares with
        Map<String, String> base = state != null ? state.configs() : t.configs();
        Map<String, String> next = new LinkedHashMap<>(base);
        Failure f = applyOperations(broker, t, res, next);
        if (f != null) {
            return CompletableFuture.completedFuture(f);
        }
        if (state == null || validateOnly) {
            return TopicConfigChange.applyAsync(broker, res.resourceName(), next, validateOnly);
        }
        return TopicConfigChange.applyAsync(broker, res.resourceName(), base, next, false).thenCompose(failure -> {
            if (failure == null || failure.error() != Errors.INVALID_UPDATE_VERSION
                    || System.nanoTime() - deadlineNanos > 0) {
                return CompletableFuture.completedFuture(failure);
            }
            return CompletableFuture.supplyAsync(() -> null,
                    CompletableFuture.delayedExecutor(backoffMs, TimeUnit.MILLISECONDS)).thenCompose(v -> alter(broker,
                            res, false, deadlineNanos, Math.min(2 * backoffMs, MAX_RETRY_MS)));
        });
    }

    /** Applies the resource's operations to {@code next}, the topic's overrides; null, or why they are refused. */
    private static Failure applyOperations(BrokerContext broker, Topic t, AlterConfigsResource res,
            Map<String, String> next) {
        Set<String> seen = new HashSet<>();
        for (AlterableConfig c : res.configs()) {
            if (!seen.add(c.name())) {
                return new Failure(Errors.INVALID_REQUEST, "Duplicate config " + c.name() + " in request");
            }
            if (!TopicConfigResolver.isTopicConfig(c.name())) {
                return new Failure(Errors.INVALID_CONFIG, "Unknown topic config name: " + c.name());
            }
            switch (c.configOperation()) {
                case OP_SET -> {
                    if (c.value() == null) {
                        return new Failure(Errors.INVALID_REQUEST, "Null value not supported for " + c.name());
                    }
                    next.put(c.name(), c.value());
                }
                case OP_DELETE -> next.remove(c.name());
                case OP_APPEND, OP_SUBTRACT -> {
                    if (TopicConfigResolver.type(c.name()) != TopicConfigResolver.TYPE_LIST) {
                        return new Failure(Errors.INVALID_CONFIG, "Config " + c.name()
                                + " is not a list; APPEND and SUBTRACT apply to lists only");
                    }
                    // The result can only be as long as both lists together, and a stored value
                    // is at most MAX_VALUE_CHARS: refuse a longer change before splitting it.
                    if (c.value() != null && c.value().length() > TopicConfigResolver.MAX_VALUE_CHARS) {
                        return new Failure(Errors.INVALID_CONFIG, "Value of topic config " + c.name()
                                + " is longer than " + TopicConfigResolver.MAX_VALUE_CHARS + " characters");
                    }
                    String current = next.getOrDefault(c.name(),
                            broker.topics().configs().effective(t.configs()).values().get(c.name()));
                    next.put(c.name(), edit(current, c.value(), c.configOperation() == OP_APPEND));
                }
                default -> {
                    return new Failure(Errors.INVALID_REQUEST, "Unknown config operation " + c.configOperation());
                }
            }
        }
        return null;
    }

    /**
     * A list value with the change's items appended (those not in it yet, in order) or removed;
     * linear in the items of both.
     */
    static String edit(String current, String change, boolean append) {
        Set<String> items = new LinkedHashSet<>();
        for (String s : current.split(",")) {
            if (!s.isBlank()) {
                items.add(s.trim());
            }
        }
        if (change != null) {
            for (String s : change.split(",")) {
                String v = s.trim();
                if (!append) {
                    items.remove(v);
                } else if (!v.isEmpty()) {
                    items.add(v);
                }
            }
        }
        return String.join(",", items);
    }

    private static AlterConfigsResourceResponse response(byte type, String name, Failure err) {
        AlterConfigsResourceResponse r = new AlterConfigsResourceResponse().resourceType(type).resourceName(name);
        return err == null ? r.errorCode(Errors.NONE.code()).errorMessage(null)
                : r.errorCode(err.error().code()).errorMessage(err.message());
    }
}
