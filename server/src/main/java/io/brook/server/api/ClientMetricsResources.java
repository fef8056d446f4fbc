package io.brook.server.api;

import io.brook.server.api.TopicConfigChange.Failure;
import io.brook.server.telemetry.ClientMetricsSubscription;
import io.brook.server.telemetry.ClientTelemetry;
import io.brook.server.telemetry.InvalidSubscriptionException;
import io.brook.wire.message.AlterConfigsRequest;
import io.brook.wire.message.DescribeConfigsRequest.DescribeConfigsResource;
import io.brook.wire.message.DescribeConfigsResponse.DescribeConfigsResourceResult;
import io.brook.wire.message.DescribeConfigsResponse.DescribeConfigsResult;
import io.brook.wire.message.IncrementalAlterConfigsRequest.AlterConfigsResource;
import io.brook.wire.message.IncrementalAlterConfigsRequest.AlterableConfig;
import io.brook.wire.protocol.Errors;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * CLIENT_METRICS config resources (type 16, KIP-714): a client metrics subscription per name,
 * described, changed incrementally (SET, DELETE, APPEND and SUBTRACT on the list keys) or
 * replaced whole (AlterConfigs), as Kafka does; a change that leaves no config removes the
 * subscription. The subscriptions themselves live in {@link ClientTelemetry}.
 */
final class ClientMetricsResources {

    static final byte RESOURCE_CLIENT_METRICS = ListConfigResourcesHandler.RESOURCE_CLIENT_METRICS;
    /** Kafka's ConfigSource id CLIENT_METRICS_CONFIG. */
    static final byte SOURCE_CLIENT_METRICS = 7;
    private static final String EMPTY_NAME = "Client metrics subscription name must not be empty";

    private ClientMetricsResources() {
    }

    static void describe(ClientTelemetry telemetry, DescribeConfigsResource res, DescribeConfigsResult r) {
        if (res.resourceName().isEmpty()) {
            r.errorCode(Errors.INVALID_REQUEST.code()).errorMessage(EMPTY_NAME);
            return;
        }
        List<DescribeConfigsResourceResult> out = new ArrayList<>();
        for (Map.Entry<String, String> e : telemetry.configs(res.resourceName()).entrySet()) {
            if (res.configurationKeys() == null || res.configurationKeys().isEmpty()
                    || res.configurationKeys().contains(e.getKey())) {
                out.add(new DescribeConfigsResourceResult().name(e.getKey()).value(e.getValue()).readOnly(false)
                        .isSensitive(false).configSource(SOURCE_CLIENT_METRICS));
            }
        }
        r.configs(out);
    }

    static Failure alter(ClientTelemetry telemetry, AlterConfigsResource res, boolean validateOnly) {
        Map<String, String> next = new LinkedHashMap<>(telemetry.configs(res.resourceName()));
        Set<String> seen = new HashSet<>();
        for (AlterableConfig c : res.configs()) {
            if (!seen.add(c.name())) {
                return new Failure(Errors.INVALID_REQUEST, "Duplicate config " + c.name() + " in request");
            }
            if (!ClientMetricsSubscription.KEYS.contains(c.name())) {
                return new Failure(Errors.INVALID_REQUEST, "Unknown client metrics configuration: " + c.name());
            }
            switch (c.configOperation()) {
                case IncrementalAlterConfigsHandler.OP_SET -> {
                    if (c.value() == null) {
                        return new Failure(Errors.INVALID_REQUEST, "Null value not supported for " + c.name());
                    }
                    next.put(c.name(), c.value());
                }
                case IncrementalAlterConfigsHandler.OP_DELETE -> next.remove(c.name());
                case IncrementalAlterConfigsHandler.OP_APPEND, IncrementalAlterConfigsHandler.OP_SUBTRACT -> {
                    if (c.name().equals(ClientMetricsSubscription.INTERVAL_MS)) {
                        return new Failure(Errors.INVALID_CONFIG, "Config " + c.name()
                                + " is not a list; APPEND and SUBTRACT apply to lists only");
                    }
                    if (c.value() != null && c.value().length() > ClientMetricsSubscription.MAX_VALUE_CHARS) {
                        return new Failure(Errors.INVALID_CONFIG, "Value of " + c.name() + " is longer than "
                                + ClientMetricsSubscription.MAX_VALUE_CHARS + " characters");
                    }
                    String edited = IncrementalAlterConfigsHandler.edit(next.getOrDefault(c.name(), ""), c.value(),
                            c.configOperation() == IncrementalAlterConfigsHandler.OP_APPEND);
                    next.put(c.name(), edited);
                }
                default -> {
                    return new Failure(Errors.INVALID_REQUEST, "Unknown config operation " + c.configOperation());
                }
            }
        }
        return replace(telemetry, res.resourceName(), next, validateOnly);
    }

    static Failure replace(ClientTelemetry telemetry, AlterConfigsRequest.AlterConfigsResource res, boolean validateOnly) {
        Map<String, String> next = new LinkedHashMap<>();
        for (AlterConfigsRequest.AlterableConfig c : res.configs()) {
            if (c.value() == null) {
                return new Failure(Errors.INVALID_REQUEST, "Null value not supported for " + c.name());
            }
            if (next.put(c.name(), c.value()) != null) {
                return new Failure(Errors.INVALID_REQUEST, "Error due to duplicate config keys");
            }
        }
        return replace(telemetry, res.resourceName(), next, validateOnly);
    }

    private static Failure replace(ClientTelemetry telemetry, String name, Map<String, String> next,
            boolean validateOnly) {
        try {
            telemetry.replace(name, next, validateOnly);
            return null;
        } catch (InvalidSubscriptionException e) {
            return new Failure(e.error(), e.getMessage());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
