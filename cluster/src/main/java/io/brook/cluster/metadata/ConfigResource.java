package io.brook.cluster.metadata;

import java.util.Comparator;

/** What a config belongs to: a topic or a broker (Kafka's resource type codes), by name. */
public record ConfigResource(byte type, String name) implements Comparable<ConfigResource> {
    private static final Comparator<ConfigResource> ORDER =
            Comparator.comparingInt(ConfigResource::type).thenComparing(ConfigResource::name);

    @Override
    public int compareTo(ConfigResource o) {
        return ORDER.compare(this, o);
    }
}
