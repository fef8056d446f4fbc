package io.brook.coordinator.group;

import java.util.Collection;
import java.util.UUID;

/**
 * The topics a KIP-848 consumer group can be assigned, as the broker knows them: the coordinator
 * assigns partitions by topic id, checks a member's subscription against what exists, and starts a
 * new group epoch when a subscribed topic appears, disappears or grows. Called on the coordinator
 * thread; implementations read the broker's topic registry and must not block.
 */
public interface ConsumerGroupTopics {

    /** A topic: its id, its name and how many partitions it has. */
    record TopicInfo(UUID id, String name, int partitions) {
    }

    /** No topics at all (a coordinator with no broker behind it, as in tests). */
    ConsumerGroupTopics NONE = new ConsumerGroupTopics() {
        @Override
        public TopicInfo byName(String name) {
            return null;
        }

        @Override
        public TopicInfo byId(UUID id) {
            return null;
        }

        @Override
        public Collection<String> names() {
            return java.util.List.of();
        }
    };

    /** The topic of that name, or null; internal topics are never returned. */
    TopicInfo byName(String name);

    /** The topic with that id, or null. */
    TopicInfo byId(UUID id);

    /** The names of every topic a group may subscribe to (for pattern subscriptions). */
    Collection<String> names();
}
