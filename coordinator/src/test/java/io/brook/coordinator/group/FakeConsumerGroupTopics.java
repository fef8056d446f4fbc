package io.brook.coordinator.group;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/** Topics by name that a test of KIP-848 groups creates and grows as it goes (ids derive from names). */
final class FakeConsumerGroupTopics implements ConsumerGroupTopics {
    private final Map<String, TopicInfo> byName = new TreeMap<>();

    UUID create(String name, int partitions) {
        UUID id = UUID.nameUUIDFromBytes(name.getBytes(UTF_8));
        byName.put(name, new TopicInfo(id, name, partitions));
        return id;
    }

    @Override
    public TopicInfo byName(String name) {
        return byName.get(name);
    }

    @Override
    public TopicInfo byId(UUID id) {
        return byName.values().stream().filter(t -> t.id().equals(id)).findFirst().orElse(null);
    }

    @Override
    public Collection<String> names() {
        return List.copyOf(byName.keySet());
    }
}
