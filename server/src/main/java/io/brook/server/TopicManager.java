package io.brook.server;

import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Topic lifecycle: the registry (what exists) together with the partition logs (what is
 * stored). Every API that creates, deletes or grows topics goes through here so the two never
 * disagree. Thread-safe; changes are serialised.
 */
final class TopicManager {

    /** Upper bound on partitions per topic: each one is a directory with open files. */
    static final int MAX_PARTITIONS = 10_000;

    private final BrokerConfig config;
    private final TopicRegistry registry;
    private final TopicConfigs topicConfigs;

    TopicManager(BrokerConfig config, TopicRegistry registry) {
        this.config = config;
        this.registry = registry;
        this.topicConfigs = new TopicConfigs(config);
    }

    TopicConfigs configs() {
        return topicConfigs;
    }

    TopicInfo get(String name) {
        return registry.get(name);
    }

    TopicInfo get(UUID id) {
        return registry.get(id);
    }

    List<TopicInfo> all() {
        return registry.all();
    }

    /** Creates a topic with the broker defaults, or returns the one that exists. */
    synchronized TopicInfo getOrCreate(String name) {
        TopicInfo t = registry.get(name);
        if (t != null) {
            return t;
        }
        return create(name, config.numPartitions(), Map.of());
    }

    /** Creates the topic; null when it exists already. The caller has validated name and counts. */
    synchronized TopicInfo create(String name, int partitions, Map<String, String> configs) {
        return registry.create(name, partitions, configs);
    }

    synchronized boolean delete(String name) {
        return registry.delete(name);
    }

    /** Grows the topic to {@code count} partitions (the caller checked that this is a growth). */
    synchronized TopicInfo addPartitions(String name, int count) {
        TopicInfo t = registry.get(name);
        if (t == null || count <= t.partitions()) {
            throw new IllegalArgumentException("cannot grow " + name + " to " + count + " partitions");
        }
        return registry.update(t.withPartitions(count));
    }

    /** Replaces the topic's config overrides (already validated). */
    synchronized TopicInfo setConfigs(String name, Map<String, String> overrides) {
        TopicInfo t = registry.get(name);
        if (t == null) {
            return null;
        }
        return registry.update(t.withConfigs(overrides));
    }
}
