package io.brook.server;

import io.brook.wire.message.AlterConfigsRequest;
import io.brook.wire.message.AlterConfigsResponse;
import io.brook.wire.message.IncrementalAlterConfigsRequest;
import io.brook.wire.message.IncrementalAlterConfigsRequest.AlterConfigsResource;
import io.brook.wire.message.IncrementalAlterConfigsRequest.AlterableConfig;
import io.brook.wire.message.IncrementalAlterConfigsResponse;
import io.brook.wire.message.IncrementalAlterConfigsResponse.AlterConfigsResourceResponse;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * IncrementalAlterConfigs (key 44) and the older AlterConfigs (key 33), for topic configs.
 * Changes are validated as a whole (all of a resource's changes or none), persisted, then applied
 * to the topic's logs. Broker configs are static in Brook: altering them is refused.
 */
final class AlterConfigsHandlers {

    static final byte OP_SET = 0;
    static final byte OP_DELETE = 1;
    static final byte OP_APPEND = 2;
    static final byte OP_SUBTRACT = 3;

    private AlterConfigsHandlers() {
    }

    /** Why a resource's change was refused. */
    record Failure(Errors error, String message) {
    }

    /** Null when the resource is a topic that exists, else why not. */
    private static Failure checkTopic(BrokerContext broker, byte type, String name) {
        if (type == DescribeConfigsHandler.RESOURCE_BROKER) {
            return new Failure(Errors.INVALID_REQUEST, "Brook's broker configs are static; change the"
                    + " properties file and restart");
        }
        if (type != DescribeConfigsHandler.RESOURCE_TOPIC) {
            return new Failure(Errors.INVALID_REQUEST, "Unsupported resource type " + type);
        }
        String bad = Topics.invalidNameReason(name);
        if (bad != null) {
            return new Failure(Errors.INVALID_TOPIC_EXCEPTION, bad);
        }
        if (broker.topics().get(name) == null) {
            return new Failure(Errors.UNKNOWN_TOPIC_OR_PARTITION, "Topic " + name + " does not exist.");
        }
        return null;
    }

    /** Validates and (unless validateOnly) stores new overrides; null on success. */
    private static Failure apply(BrokerContext broker, String topic, Map<String, String> overrides,
            boolean validateOnly) {
        for (String key : overrides.keySet()) {
            if (!TopicConfigs.isTopicConfig(key)) {
                return new Failure(Errors.INVALID_CONFIG, "Unknown topic config name: " + key);
            }
        }
        String invalid = broker.topics().configs().invalid(overrides);
        if (invalid != null) {
            return new Failure(Errors.INVALID_CONFIG, invalid);
        }
        if (!validateOnly && broker.topics().setConfigs(topic, overrides) == null) {
            return new Failure(Errors.UNKNOWN_TOPIC_OR_PARTITION, "Topic " + topic + " does not exist.");
        }
        return null;
    }

    static final class Incremental implements ApiHandler<IncrementalAlterConfigsRequest> {
        @Override
        public void handle(RequestContext ctx, IncrementalAlterConfigsRequest request) {
            BrokerContext broker = ctx.broker();
            List<AlterConfigsResourceResponse> out = new ArrayList<>();
            for (AlterConfigsResource res : request.resources()) {
                Failure err = checkTopic(broker, res.resourceType(), res.resourceName());
                if (err == null) {
                    err = alter(broker, res, request.validateOnly());
                }
                out.add(response(res.resourceType(), res.resourceName(), err));
            }
            ctx.respond(new IncrementalAlterConfigsResponse().responses(out));
        }

        private static Failure alter(BrokerContext broker, AlterConfigsResource res, boolean validateOnly) {
            TopicInfo t = broker.topics().get(res.resourceName());
            if (t == null) {
                return new Failure(Errors.UNKNOWN_TOPIC_OR_PARTITION, "Topic " + res.resourceName() + " does not exist.");
            }
            Map<String, String> next = new LinkedHashMap<>(t.configs());
            Set<String> seen = new HashSet<>();
            for (AlterableConfig c : res.configs()) {
                if (!seen.add(c.name())) {
                    return new Failure(Errors.INVALID_REQUEST, "Duplicate config " + c.name() + " in request");
                }
                if (!TopicConfigs.isTopicConfig(c.name())) {
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
                        if (TopicConfigs.type(c.name()) != TopicConfigs.TYPE_LIST) {
                            return new Failure(Errors.INVALID_CONFIG, "Config " + c.name()
                                    + " is not a list; APPEND and SUBTRACT apply to lists only");
                        }
                        String current = next.getOrDefault(c.name(),
                                broker.topics().configs().effective(t.configs()).values().get(c.name()));
                        List<String> items = new ArrayList<>();
                        for (String s : current.split(",")) {
                            if (!s.isBlank()) {
                                items.add(s.trim());
                            }
                        }
                        List<String> change = c.value() == null ? List.of() : Arrays.asList(c.value().split(","));
                        for (String s : change) {
                            String v = s.trim();
                            if (c.configOperation() == OP_APPEND) {
                                if (!v.isEmpty() && !items.contains(v)) {
                                    items.add(v);
                                }
                            } else {
                                items.remove(v);
                            }
                        }
                        next.put(c.name(), String.join(",", items));
                    }
                    default -> {
                        return new Failure(Errors.INVALID_REQUEST, "Unknown config operation " + c.configOperation());
                    }
                }
            }
            return apply(broker, res.resourceName(), next, validateOnly);
        }

        private static AlterConfigsResourceResponse response(byte type, String name, Failure err) {
            AlterConfigsResourceResponse r = new AlterConfigsResourceResponse().resourceType(type).resourceName(name);
            return err == null ? r.errorCode(Errors.NONE.code()).errorMessage(null)
                    : r.errorCode(err.error().code()).errorMessage(err.message());
        }

        @Override
        public ApiMessage errorResponse(IncrementalAlterConfigsRequest request, short version, Errors error) {
            List<AlterConfigsResourceResponse> out = new ArrayList<>();
            for (AlterConfigsResource res : request.resources()) {
                out.add(new AlterConfigsResourceResponse().resourceType(res.resourceType())
                        .resourceName(res.resourceName()).errorCode(error.code()));
            }
            return new IncrementalAlterConfigsResponse().responses(out);
        }
    }

    /** The pre-KIP-339 API: the given configs replace all of the topic's overrides. */
    static final class Legacy implements ApiHandler<AlterConfigsRequest> {
        @Override
        public void handle(RequestContext ctx, AlterConfigsRequest request) {
            BrokerContext broker = ctx.broker();
            List<AlterConfigsResponse.AlterConfigsResourceResponse> out = new ArrayList<>();
            for (AlterConfigsRequest.AlterConfigsResource res : request.resources()) {
                Failure err = checkTopic(broker, res.resourceType(), res.resourceName());
                if (err == null) {
                    Map<String, String> next = new LinkedHashMap<>();
                    for (AlterConfigsRequest.AlterableConfig c : res.configs()) {
                        if (c.value() == null) {
                            err = new Failure(Errors.INVALID_REQUEST, "Null value not supported for " + c.name());
                            break;
                        }
                        next.put(c.name(), c.value());
                    }
                    if (err == null) {
                        err = apply(broker, res.resourceName(), next, request.validateOnly());
                    }
                }
                AlterConfigsResponse.AlterConfigsResourceResponse r = new AlterConfigsResponse.AlterConfigsResourceResponse()
                        .resourceType(res.resourceType()).resourceName(res.resourceName());
                out.add(err == null ? r.errorCode(Errors.NONE.code()).errorMessage(null)
                        : r.errorCode(err.error().code()).errorMessage(err.message()));
            }
            ctx.respond(new AlterConfigsResponse().responses(out));
        }

        @Override
        public ApiMessage errorResponse(AlterConfigsRequest request, short version, Errors error) {
            List<AlterConfigsResponse.AlterConfigsResourceResponse> out = new ArrayList<>();
            for (AlterConfigsRequest.AlterConfigsResource res : request.resources()) {
                out.add(new AlterConfigsResponse.AlterConfigsResourceResponse().resourceType(res.resourceType())
                        .resourceName(res.resourceName()).errorCode(error.code()));
            }
            return new AlterConfigsResponse().responses(out);
        }
    }
}
