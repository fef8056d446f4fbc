package io.brook.server.api;

import io.brook.coordinator.group.ConsumerGroupConfig;
import io.brook.server.api.TopicConfigChange.Failure;
import io.brook.server.config.BrokerConfig;
import io.brook.server.config.GroupConfigStore;
import io.brook.server.node.ClusterAdminException;
import io.brook.wire.message.AlterConfigsRequest;
import io.brook.wire.message.DescribeConfigsResponse.DescribeConfigsResourceResult;
import io.brook.wire.message.IncrementalAlterConfigsRequest.AlterConfigsResource;
import io.brook.wire.message.IncrementalAlterConfigsRequest.AlterableConfig;
import io.brook.wire.protocol.Errors;
import io.brook.wire.protocol.LogSafe;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A group's own settings as a config resource (Kafka's resource type GROUP, 32;
 * {@code kafka-configs.sh --entity-type groups}): described with the value in force for each
 * setting Brook has ({@link ConsumerGroupConfig#GROUP_SETTINGS}: the group's own, source
 * GROUP_CONFIG, or else the broker's, source STATIC_BROKER_CONFIG when its configuration sets
 * {@code group.consumer.*} and DEFAULT_CONFIG when not, as Kafka 4.4 reports them), changed with
 * IncrementalAlterConfigs (SET, DELETE) or AlterConfigs (all of them replaced), checked as Kafka
 * checks them ({@link ConsumerGroupConfig#groupSettingsProblem}: INVALID_CONFIG), kept in the
 * {@link GroupConfigStore}. The group need not exist, as in Kafka.
 */
final class GroupConfigResources {

    private static final Logger LOG = LoggerFactory.getLogger(GroupConfigResources.class);

    static final byte RESOURCE_GROUP = ListConfigResourcesHandler.RESOURCE_GROUP;
    /** Kafka's ConfigSource ids. */
    private static final byte SOURCE_STATIC_BROKER = 4;
    private static final byte SOURCE_DEFAULT = 5;
    private static final byte SOURCE_GROUP = 8;
    /** DescribeConfigs' type id (v3+) of both settings. */
    static final byte TYPE_INT = 3;
    private static final Failure EMPTY_NAME = new Failure(Errors.INVALID_REQUEST, "Group name must not be empty");

    private GroupConfigResources() {
    }

    /** The settings of group {@code name}, those of {@code keys} only when that is neither null nor empty. */
    static List<DescribeConfigsResourceResult> describe(GroupConfigStore store, BrokerConfig config, String name,
            List<String> keys) {
        Map<String, String> own = store.of(name);
        ConsumerGroupConfig broker = config.groupCoordinator().consumerGroups();
        Map<String, Integer> inForce = Map.of(ConsumerGroupConfig.GROUP_HEARTBEAT_INTERVAL_MS,
                broker.heartbeatIntervalMs(), ConsumerGroupConfig.GROUP_SESSION_TIMEOUT_MS, broker.sessionTimeoutMs());
        List<DescribeConfigsResourceResult> out = new ArrayList<>();
        for (String key : ConsumerGroupConfig.GROUP_SETTINGS) {
            if (keys != null && !keys.isEmpty() && !keys.contains(key)) {
                continue;
            }
            String value = own.get(key);
            byte source = value != null ? SOURCE_GROUP
                    : config.groupSettings().containsKey("group." + key) ? SOURCE_STATIC_BROKER : SOURCE_DEFAULT;
            out.add(new DescribeConfigsResourceResult().name(key)
                    .value(value != null ? value : Integer.toString(inForce.get(key))).readOnly(false)
                    .isSensitive(false).configSource(source));
        }
        return out;
    }

    /** Why group {@code name} cannot be described, or null. */
    static Failure checkName(String name) {
        return name == null || name.isEmpty() ? EMPTY_NAME : null;
    }

    /** IncrementalAlterConfigs: SET and DELETE on the group's current settings. */
    static CompletableFuture<Failure> alter(GroupConfigStore store, BrokerConfig config, AlterConfigsResource res,
            boolean validateOnly) {
        if (checkName(res.resourceName()) != null) {
            return done(EMPTY_NAME);
        }
        Map<String, String> next = new LinkedHashMap<>(store.of(res.resourceName()));
        Set<String> seen = new HashSet<>();
        for (AlterableConfig c : res.configs()) {
            if (!seen.add(c.name())) {
                return done(new Failure(Errors.INVALID_REQUEST, "Duplicate config " + c.name() + " in request"));
            }
            switch (c.configOperation()) {
                case IncrementalAlterConfigsHandler.OP_SET -> {
                    if (c.value() == null) {
                        return done(new Failure(Errors.INVALID_REQUEST, "Null value not supported for " + c.name()));
                    }
                    next.put(c.name(), c.value().trim());
                }
                case IncrementalAlterConfigsHandler.OP_DELETE -> next.remove(c.name());
                case IncrementalAlterConfigsHandler.OP_APPEND, IncrementalAlterConfigsHandler.OP_SUBTRACT -> {
                    return done(new Failure(Errors.INVALID_CONFIG, "Config " + c.name()
                            + " is not a list; APPEND and SUBTRACT apply to lists only"));
                }
                default -> {
                    return done(new Failure(Errors.INVALID_REQUEST, "Unknown config operation " + c.configOperation()));
                }
            }
        }
        return store(store, config, res.resourceName(), next, validateOnly);
    }

    /** AlterConfigs: the given settings replace all of the group's. */
    static CompletableFuture<Failure> replace(GroupConfigStore store, BrokerConfig config,
            AlterConfigsRequest.AlterConfigsResource res, boolean validateOnly) {
        if (checkName(res.resourceName()) != null) {
            return done(EMPTY_NAME);
        }
        Map<String, String> next = new LinkedHashMap<>();
        for (AlterConfigsRequest.AlterableConfig c : res.configs()) {
            if (c.value() == null) {
                return done(new Failure(Errors.INVALID_REQUEST, "Null value not supported for " + c.name()));
            }
            if (next.put(c.name(), c.value().trim()) != null) {
                return done(new Failure(Errors.INVALID_REQUEST, "Error due to duplicate config keys"));
            }
        }
        return store(store, config, res.resourceName(), next, validateOnly);
    }

    private static CompletableFuture<Failure> store(GroupConfigStore store, BrokerConfig config, String group,
            Map<String, String> next, boolean validateOnly) {
        String problem = ConsumerGroupConfig.groupSettingsProblem(config.groupSettings(), next);
        if (problem != null) {
            return done(new Failure(Errors.INVALID_CONFIG, problem));
        }
        if (validateOnly) {
            return done(null);
        }
        return store.replace(group, next).handle((v, e) -> {
            if (e == null) {
                return null;
            }
            Throwable c = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            if (c instanceof ClusterAdminException a) {
                return new Failure(a.error(), a.getMessage());
            }
            LOG.error("Could not store the settings of group {}", LogSafe.escape(group), c);
            return new Failure(Errors.UNKNOWN_SERVER_ERROR, "The group's settings could not be stored: " + c);
        });
    }

    private static CompletableFuture<Failure> done(Failure f) {
        return CompletableFuture.completedFuture(f);
    }
}
