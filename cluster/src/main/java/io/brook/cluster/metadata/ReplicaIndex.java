package io.brook.cluster.metadata;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * Which partitions each broker is a replica of, kept by {@link MetadataImage} as partitions are
 * created, change replicas or go with their topic, so that fencing and unfencing a broker visit
 * that broker's partitions instead of every partition of the image (docs/scaling.md). Derived
 * state: it is never written to the log or a snapshot, and an image rebuilt from its records
 * rebuilds it.
 *
 * <p>Deterministic: brokers, topic ids and partition indexes come out in ascending order (the
 * order the image's own maps have), so every node visits a broker's partitions alike. Per broker
 * and topic the partitions are a bit set (a topic's partitions are dense from 0), which keeps the
 * index small next to the image. Not thread-safe: used only under the image's lock.
 */
final class ReplicaIndex {

    /** A partition of a topic. */
    record Key(UUID topicId, int partition) {
    }

    private final TreeMap<Integer, TreeMap<UUID, BitSet>> byBroker = new TreeMap<>();

    /** Records that {@code partition}'s replicas changed from {@code before} (null when new) to {@code after}. */
    void replicasChanged(UUID topicId, int partition, List<Integer> before, List<Integer> after) {
        if (before != null) {
            for (int b : before) {
                if (!after.contains(b)) {
                    remove(b, topicId, partition);
                }
            }
        }
        for (int b : after) {
            if (before == null || !before.contains(b)) {
                byBroker.computeIfAbsent(b, k -> new TreeMap<>()).computeIfAbsent(topicId, k -> new BitSet())
                        .set(partition);
            }
        }
    }

    private void remove(int broker, UUID topicId, int partition) {
        TreeMap<UUID, BitSet> topics = byBroker.get(broker);
        BitSet parts = topics == null ? null : topics.get(topicId);
        if (parts == null) {
            return;
        }
        parts.clear(partition);
        if (parts.isEmpty()) {
            topics.remove(topicId);
            if (topics.isEmpty()) {
                byBroker.remove(broker);
            }
        }
    }

    /** Forgets every partition of a topic that is removed. */
    void topicRemoved(TopicInfo topic) {
        for (Map.Entry<Integer, PartitionInfo> e : topic.partitions().entrySet()) {
            for (int b : e.getValue().replicas()) {
                remove(b, topic.id(), e.getKey());
            }
        }
    }

    /** The partitions {@code broker} is a replica of, in (topic id, partition) order; a copy. */
    List<Key> partitionsOf(int broker) {
        TreeMap<UUID, BitSet> topics = byBroker.get(broker);
        if (topics == null) {
            return List.of();
        }
        List<Key> out = new ArrayList<>();
        topics.forEach((id, parts) -> parts.stream().forEach(p -> out.add(new Key(id, p))));
        return out;
    }

    /** How many partitions {@code broker} is a replica of. */
    int count(int broker) {
        TreeMap<UUID, BitSet> topics = byBroker.get(broker);
        int n = 0;
        if (topics != null) {
            for (BitSet parts : topics.values()) {
                n += parts.cardinality();
            }
        }
        return n;
    }
}
