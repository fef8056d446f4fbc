package io.brook.server.topic;

import java.util.Map;
import java.util.UUID;

/**
 * A topic as the registry knows it: name, permanent id (KIP-516), partition count and the
 * configs set on it explicitly (defaults come from the broker config). Immutable.
 */
public record Topic(String name, UUID id, int partitions, Map<String, String> configs) {

    public Topic {
        configs = Map.copyOf(configs);
    }

    public boolean isInternal() {
        return TopicNames.isInternal(name);
    }

    Topic withPartitions(int count) {
        return new Topic(name, id, count, configs);
    }

    Topic withConfigs(Map<String, String> newConfigs) {
        return new Topic(name, id, partitions, newConfigs);
    }
}
