package io.brook.coordinator.group;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.brook.coordinator.runtime.EventLoop;

/**
 * The classic groups this coordinator knows, by id. A group enters on its first join or commit (or
 * when replay finds its records) and leaves once it is Dead. Continuations that captured a group
 * (timers, log writes) check {@link #isCurrent} before touching it: a group deleted and created
 * again under the same id is another object.
 *
 * <p>Owned by the coordinator's owner thread; not thread-safe.
 */
final class ClassicGroups {

    private final GroupCoordinatorConfig config;
    private final EventLoop loop;
    private final Map<String, ClassicGroup> groups = new HashMap<>();

    ClassicGroups(GroupCoordinatorConfig config, EventLoop loop) {
        this.config = config;
        this.loop = loop;
    }

    /** The group, or null when unknown. */
    ClassicGroup get(String groupId) {
        return groups.get(groupId);
    }

    /** The group, created Empty (in the partition its id hashes to) when unknown. */
    ClassicGroup getOrCreate(String groupId) {
        return groups.computeIfAbsent(groupId, g -> new ClassicGroup(g, config.partitionFor(g), loop.now()));
    }

    boolean isCurrent(ClassicGroup group) {
        return groups.get(group.groupId) == group;
    }

    void remove(String groupId) {
        groups.remove(groupId);
    }

    /** Live view, for reading only. */
    Collection<ClassicGroup> all() {
        return groups.values();
    }

    /** A copy, for loops that may remove groups. */
    List<ClassicGroup> snapshot() {
        return new ArrayList<>(groups.values());
    }
}
