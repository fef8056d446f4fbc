package io.brook.server;

import java.util.Map;
import java.util.UUID;

/**
 * A topic as the registry knows it: name, permanent id (KIP-516), partition count and the
 * configs set on it explicitly (defaults come from the broker config). Immutable.
 */
record TopicInfo(String name, UUID id, int partitions, Map<String, String> configs) {

    TopicInfo {
        configs = Map.copyOf(configs);
    }

    boolean isInternal() {
        return Topics.isInternal(name);
    }

    TopicInfo withPartitions(int count) {
        return new TopicInfo(name, id, count, configs);
    }

    TopicInfo withConfigs(Map<String, String> newConfigs) {
        return new TopicInfo(name, id, partitions, newConfigs);
    }
}
