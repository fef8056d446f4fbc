package io.brook.cluster.metadata;

import java.util.Collections;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.TreeMap;
import java.util.UUID;

/** A topic in the metadata image: its name, id and partitions by index. Changed only by {@link MetadataImage}. */
public final class TopicInfo {
    private final String name;
    private final UUID id;
    private final TreeMap<Integer, PartitionInfo> partitions = new TreeMap<>();
    private final ReplicaIndex index;

    TopicInfo(String name, UUID id, ReplicaIndex index) {
        this.name = name;
        this.id = id;
        this.index = index;
    }

    public String name() {
        return name;
    }

    public UUID id() {
        return id;
    }

    /** The partitions by index, in order; a read-only view. */
    public NavigableMap<Integer, PartitionInfo> partitions() {
        return Collections.unmodifiableNavigableMap(partitions);
    }

    /** Sets a partition's state; a change of its replicas is recorded in the image's {@link ReplicaIndex}. */
    void put(int partition, PartitionInfo info) {
        PartitionInfo old = partitions.put(partition, info);
        if (old == null || !old.replicas().equals(info.replicas())) {
            index.replicasChanged(id, partition, old == null ? null : old.replicas(), info.replicas());
        }
    }

    /** Same name, id and partitions (used by {@link MetadataImage#equals}). */
    @Override
    public boolean equals(Object o) {
        return o instanceof TopicInfo t && name.equals(t.name) && id.equals(t.id) && partitions.equals(t.partitions);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, id, partitions);
    }
}
