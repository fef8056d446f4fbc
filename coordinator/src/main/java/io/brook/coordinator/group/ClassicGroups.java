package io.brook.coordinator.group;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.brook.coordinator.runtime.EventLoop;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The classic groups this coordinator knows, by id. A group enters on its first join or commit (or
 * when replay finds its records) and leaves once it is Dead. Continuations that captured a group
 * (timers, log writes) check {@link #isCurrent} before touching it: a group deleted and created
 * again under the same id is another object.
 *
 * <p>Owned by the coordinator's owner thread; not thread-safe.
 */
final class ClassicGroups {

    private static final Logger LOG = LoggerFactory.getLogger(ClassicGroups.class);

    private final GroupCoordinatorConfig config;
    private final EventLoop loop;
    private final Map<String, ClassicGroup> groups = new HashMap<>();
    /** Whether the refusal at {@code brook.group.max.groups} was logged since the count was last below it. */
    private boolean limitLogged;

    ClassicGroups(GroupCoordinatorConfig config, EventLoop loop) {
        this.config = config;
        this.loop = loop;
    }

    /** The group, or null when unknown. */
    ClassicGroup get(String groupId) {
        return groups.get(groupId);
    }

    /** The group, created Empty (in the partition its id hashes to) when unknown. For replay and durable writes. */
    ClassicGroup getOrCreate(String groupId) {
        return groups.computeIfAbsent(groupId, g -> new ClassicGroup(g, config.partitionFor(g), loop.now()));
    }

    /**
     * The group, created Empty when unknown as long as fewer than {@code brook.group.max.groups}
     * groups exist; null when that many exist already (a client asking for a new group then gets
     * COORDINATOR_NOT_AVAILABLE, which Kafka's clients retry). Groups without members or offsets
     * leave at the next offsets retention check, making room again.
     */
    ClassicGroup getOrCreateWithinLimit(String groupId) {
        ClassicGroup group = groups.get(groupId);
        if (group != null) {
            return group;
        }
        if (groups.size() >= config.maxGroups()) {
            if (!limitLogged) {
                limitLogged = true;
                LOG.warn("{} classic groups exist (brook.group.max.groups): new groups are refused until some are"
                        + " deleted or expire", groups.size());
            }
            return null;
        }
        limitLogged = false;
        return getOrCreate(groupId);
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
