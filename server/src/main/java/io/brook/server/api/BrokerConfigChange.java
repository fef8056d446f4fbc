package io.brook.server.api;

import io.brook.server.api.TopicConfigChange.Failure;
import io.brook.server.config.BrokerConfig;
import io.brook.server.config.DynamicBrokerConfig;
import io.brook.server.node.BrokerContext;
import io.brook.server.topic.TopicConfigResolver;
import io.brook.storage.config.ConfigKey;
import io.brook.wire.message.IncrementalAlterConfigsRequest.AlterConfigsResource;
import io.brook.wire.message.IncrementalAlterConfigsRequest.AlterableConfig;
import io.brook.wire.protocol.Errors;
import java.io.IOException;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * IncrementalAlterConfigs on a BROKER resource ({@code kafka-configs.sh --alter --entity-type
 * brokers}): the resource name is this broker's id (its own settings) or empty (the cluster-wide
 * default). All changes of a resource are checked first (only {@link DynamicBrokerConfig#RECONFIGURABLE}
 * keys, values of the key's type, topic defaults that stay valid), then persisted together and
 * applied to every topic without its own override, or none is.
 */
final class BrokerConfigChange {

    private static final Logger LOG = LoggerFactory.getLogger(BrokerConfigChange.class);

    private BrokerConfigChange() {
    }

    /** Null when {@code name} names this broker or the cluster default, else why not. */
    static Failure checkBroker(BrokerContext broker, String name) {
        if (!name.isEmpty() && !name.equals(Integer.toString(broker.nodeId()))) {
            return new Failure(Errors.INVALID_REQUEST, "Unexpected broker id, expected " + broker.nodeId()
                    + " or empty string, but received " + name);
        }
        return null;
    }

    static Failure alter(BrokerContext broker, AlterConfigsResource res, boolean validateOnly) {
        Failure f = checkBroker(broker, res.resourceName());
        if (f != null) {
            return f;
        }
        TopicConfigResolver resolver = broker.topics().configs();
        DynamicBrokerConfig dynamic = resolver.dynamic();
        boolean defaultScope = res.resourceName().isEmpty();
        Map<String, String> next = new LinkedHashMap<>(defaultScope ? dynamic.clusterDefault() : dynamic.broker());
        Set<String> seen = new HashSet<>();
        for (AlterableConfig c : res.configs()) {
            if (!seen.add(c.name())) {
                return new Failure(Errors.INVALID_REQUEST, "Duplicate config " + c.name() + " in request");
            }
            ConfigKey key = BrokerConfig.KEYS.get(c.name());
            switch (c.configOperation()) {
                case IncrementalAlterConfigsHandler.OP_SET -> {
                    if (c.value() == null) {
                        return new Failure(Errors.INVALID_REQUEST, "Null value not supported for " + c.name());
                    }
                    next.put(c.name(), c.value());
                }
                case IncrementalAlterConfigsHandler.OP_DELETE -> next.remove(c.name());
                case IncrementalAlterConfigsHandler.OP_APPEND, IncrementalAlterConfigsHandler.OP_SUBTRACT -> {
                    if (key == null || key.type() != ConfigKey.Type.LIST) {
                        return new Failure(Errors.INVALID_CONFIG, "Config " + c.name()
                                + " is not a list; APPEND and SUBTRACT apply to lists only");
                    }
                    String current = next.containsKey(c.name()) ? next.get(c.name())
                            : String.join(",", broker.config().list(c.name()));
                    next.put(c.name(), IncrementalAlterConfigsHandler.edit(current, c.value(),
                            c.configOperation() == IncrementalAlterConfigsHandler.OP_APPEND));
                }
                default -> {
                    return new Failure(Errors.INVALID_REQUEST, "Unknown config operation " + c.configOperation());
                }
            }
            if (c.configOperation() != IncrementalAlterConfigsHandler.OP_DELETE) {
                String invalid = DynamicBrokerConfig.invalid(c.name(), next.get(c.name()));
                if (invalid != null) {
                    return new Failure(Errors.INVALID_CONFIG, invalid);
                }
            } else if (key == null) {
                return new Failure(Errors.INVALID_CONFIG, "Unknown broker config " + c.name());
            }
        }
        Map<String, String> effective = new LinkedHashMap<>(defaultScope ? next : dynamic.clusterDefault());
        effective.putAll(defaultScope ? dynamic.broker() : next);
        String invalid = resolver.invalidDynamic(effective);
        if (invalid != null) {
            return new Failure(Errors.INVALID_CONFIG, invalid);
        }
        if (validateOnly) {
            return null;
        }
        try {
            dynamic.replace(defaultScope, next, inForce -> {
                resolver.reconfigure(inForce);
                broker.topics().reconfigureAll();
            });
        } catch (IOException e) {
            LOG.error("Could not persist the broker's dynamic settings", e);
            return new Failure(Errors.KAFKA_STORAGE_ERROR, "Could not persist the change: " + e.getMessage());
        }
        LOG.info("Broker settings changed at run time ({}): {}", defaultScope ? "cluster default" : "this broker", next);
        return null;
    }
}
