package io.brook.server.api;

import io.brook.server.node.BrokerContext;
import io.brook.server.node.ClusterAdminException;
import io.brook.server.node.ClusterView;
import io.brook.server.topic.TopicConfigResolver;
import io.brook.server.topic.TopicNames;
import io.brook.storage.LogConfig;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * What IncrementalAlterConfigs and AlterConfigs share: the resource check (only existing topics;
 * broker settings change through IncrementalAlterConfigs only, see {@link BrokerConfigChange}) and
 * the validation and storing of a topic's new overrides, all of a resource's changes or none. Stored overrides are persisted by the registry, then
 * applied to the topic's logs. An internal topic's {@code cleanup.policy} stays {@code compact}
 * ({@link #destroysInternalTopic}).
 *
 * <p>In cluster mode the controller stores them: one decision for all of a resource's keys
 * (applied all or nothing), mirrored into every node's topics; the answer waits for it without
 * holding a thread ({@link #applyAsync}).
 */
final class TopicConfigChange {

    private TopicConfigChange() {
    }

    /**
     * The resources (type, name) named more than once in one request: Kafka answers each of them
     * INVALID_REQUEST, so that one request changes (and writes) a topic's configs at most once.
     */
    static Set<String> duplicateResources(List<String> keys) {
        Set<String> seen = new HashSet<>();
        Set<String> dup = new HashSet<>();
        for (String k : keys) {
            if (!seen.add(k)) {
                dup.add(k);
            }
        }
        return dup;
    }

    static String resourceKey(byte type, String name) {
        return type + ":" + name;
    }

    static final Failure DUPLICATE_RESOURCE = new Failure(Errors.INVALID_REQUEST, "Each resource must appear at most once.");

    /** Why a resource's change was refused. */
    record Failure(Errors error, String message) {
    }

    /** Null when the resource is a topic that exists, else why not. */
    static Failure checkTopic(BrokerContext broker, byte type, String name) {
        if (type != DescribeConfigsHandler.RESOURCE_TOPIC) {
            return new Failure(Errors.INVALID_REQUEST, "Unsupported resource type " + type);
        }
        String bad = TopicNames.invalidNameReason(name);
        if (bad != null) {
            return new Failure(Errors.INVALID_TOPIC_EXCEPTION, bad);
        }
        if (broker.topics().get(name) == null) {
            return new Failure(Errors.UNKNOWN_TOPIC_OR_PARTITION, "Topic " + name + " does not exist.");
        }
        return null;
    }

    /**
     * Validates and (unless validateOnly) stores new overrides; completes with null on success.
     * In cluster mode it completes when the controller's decision is mirrored here, on the thread
     * that mirrors it; else at once.
     */
    static CompletableFuture<Failure> applyAsync(BrokerContext broker, String topic, Map<String, String> overrides,
            boolean validateOnly) {
        return applyAsync(broker, topic, null, overrides, validateOnly);
    }

    /**
     * As {@link #applyAsync(BrokerContext, String, Map, boolean)}; in cluster mode only if the
     * controller still has {@code expected} as the topic's overrides (null: whatever it has), else
     * it completes with INVALID_UPDATE_VERSION and nothing changed.
     */
    static CompletableFuture<Failure> applyAsync(BrokerContext broker, String topic, Map<String, String> expected,
            Map<String, String> overrides, boolean validateOnly) {
        Failure invalid = validate(broker, topic, overrides);
        if (invalid != null || validateOnly || broker.cluster() == null) {
            return CompletableFuture.completedFuture(invalid != null ? invalid : apply(broker, topic, overrides,
                    validateOnly));
        }
        ClusterView cluster = broker.cluster();
        if (cluster.topic(topic) == null) {
            return CompletableFuture.completedFuture(
                    new Failure(Errors.UNKNOWN_TOPIC_OR_PARTITION, "Topic " + topic + " does not exist."));
        }
        CompletableFuture<Void> decided = expected == null ? cluster.replaceTopicConfigs(topic, overrides)
                : cluster.replaceTopicConfigs(topic, expected, overrides);
        return decided.handle((v, e) -> e == null ? null
                : new Failure(ClusterAdminException.errorOf(e), ClusterAdminException.messageOf(e)));
    }

    private static Failure validate(BrokerContext broker, String topic, Map<String, String> overrides) {
        for (String key : overrides.keySet()) {
            if (!TopicConfigResolver.isTopicConfig(key)) {
                return new Failure(Errors.INVALID_CONFIG, "Unknown topic config name: " + key);
            }
        }
        String invalid = broker.topics().configs().invalid(overrides);
        if (invalid == null && TopicNames.isInternal(topic)) {
            invalid = destroysInternalTopic(topic, overrides);
        }
        return invalid == null ? null : new Failure(Errors.INVALID_CONFIG, invalid);
    }

    /**
     * Why {@code overrides} would let the cleaner or retention delete an internal topic's records
     * (committed offsets, transaction states), or null. Its records live until a newer one with
     * the same key replaces them, so its {@code cleanup.policy} stays {@code compact}: with
     * {@code delete} (alone or with {@code compact}) retention would drop the offsets of every
     * group idle for longer than {@code retention.ms}, and an override left out of a whole-set
     * AlterConfigs would fall back to the broker's default, {@code delete}. Kafka takes such a
     * change; Brook refuses it, whoever asks.
     */
    static String destroysInternalTopic(String topic, Map<String, String> overrides) {
        String policy = overrides.get(LogConfig.CLEANUP_POLICY);
        if (policy != null && policy.strip().equals("compact")) {
            return null;
        }
        return "The cleanup.policy of internal topic " + topic + " must stay compact (it is "
                + (policy == null ? "left out, which would fall back to the broker's default" : "'" + policy + "'")
                + "): any other policy lets retention delete its records.";
    }

    /** Stores validated overrides on a single node (unless validateOnly); null on success. */
    private static Failure apply(BrokerContext broker, String topic, Map<String, String> overrides,
            boolean validateOnly) {
        if (!validateOnly && broker.topics().setConfigs(topic, overrides) == null) {
            return new Failure(Errors.UNKNOWN_TOPIC_OR_PARTITION, "Topic " + topic + " does not exist.");
        }
        return null;
    }
}
