package io.brook.server;

import io.brook.storage.Log;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Topic lifecycle: the registry (what exists) together with the partition logs (what is
 * stored). Every API that creates, deletes, grows or reconfigures topics goes through here so
 * the two never disagree: logs are created before the registry records the topic, and the
 * registry forgets a topic before its logs are deleted, so a crash in between leaves at worst an
 * orphan directory, never a registered topic without logs. Changes are serialised; lookups are
 * lock-free.
 */
final class TopicManager {

    /** Upper bound on partitions per topic: each one is a directory with open files. */
    static final int MAX_PARTITIONS = 10_000;

    private final BrokerConfig config;
    private final TopicRegistry registry;
    private final TopicConfigs topicConfigs;
    private final PartitionLogs logs;

    TopicManager(BrokerConfig config, TopicRegistry registry, TopicConfigs topicConfigs, PartitionLogs logs) {
        this.config = config;
        this.registry = registry;
        this.topicConfigs = topicConfigs;
        this.logs = logs;
    }

    /** Opens the logs of every registered topic (start-up). */
    void openAll() throws IOException {
        for (TopicInfo t : registry.all()) {
            logs.open(t.name(), 0, t.partitions(), topicConfigs.effective(t.configs()));
        }
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

    /** The log of a partition of an existing topic, or null. */
    Log log(String topic, int partition) {
        return logs.log(topic, partition);
    }

    /** Creates a topic with the broker defaults, or returns the one that exists. */
    synchronized TopicInfo getOrCreate(String name) {
        TopicInfo t = registry.get(name);
        if (t != null) {
            return t;
        }
        return create(name, config.numPartitions(), Map.of());
    }

    /** Creates the topic; null when it exists already. The caller has validated name, counts and configs. */
    synchronized TopicInfo create(String name, int partitions, Map<String, String> configs) {
        if (registry.get(name) != null) {
            return null;
        }
        try {
            logs.open(name, 0, partitions, topicConfigs.effective(configs));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create the logs of topic " + name, e);
        }
        return registry.create(name, partitions, configs);
    }

    synchronized boolean delete(String name) {
        TopicInfo t = registry.get(name);
        if (t == null || !registry.delete(name)) {
            return false;
        }
        try {
            logs.delete(name, t.partitions());
        } catch (IOException e) {
            throw new UncheckedIOException("Topic " + name + " is deleted but its logs could not be removed", e);
        }
        return true;
    }

    /** Grows the topic to {@code count} partitions (the caller checked that this is a growth). */
    synchronized TopicInfo addPartitions(String name, int count) {
        TopicInfo t = registry.get(name);
        if (t == null || count <= t.partitions()) {
            throw new IllegalArgumentException("cannot grow " + name + " to " + count + " partitions");
        }
        try {
            logs.open(name, t.partitions(), count, topicConfigs.effective(t.configs()));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create new partitions of topic " + name, e);
        }
        return registry.update(t.withPartitions(count));
    }

    /** Replaces the topic's config overrides (already validated); null when the topic is gone. */
    synchronized TopicInfo setConfigs(String name, Map<String, String> overrides) {
        TopicInfo t = registry.get(name);
        if (t == null) {
            return null;
        }
        TopicInfo updated = registry.update(t.withConfigs(overrides));
        logs.reconfigure(name, updated.partitions(), topicConfigs.effective(overrides));
        return updated;
    }
}
