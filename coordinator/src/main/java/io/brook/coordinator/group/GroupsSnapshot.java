package io.brook.coordinator.group;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the group coordinator holds, at one moment, for metrics, lag and the console: every group
 * with its state, committed offsets and members. Taken on the coordinator's thread
 * ({@link GroupCoordinator#snapshot}); immutable.
 */
public record GroupsSnapshot(List<Group> groups) {

    /** What {@code groups} hold now: each group's state, committed offsets and members. Coordinator thread. */
    static GroupsSnapshot of(Iterable<ClassicGroup> groups, ConsumerGroupTopics topics) {
        List<Group> out = new ArrayList<>();
        for (ClassicGroup g : groups) {
            List<CommittedOffset> committed = new ArrayList<>();
            g.offsets.forEach((topic, partitions) -> partitions.forEach((partition, value) ->
                    committed.add(new CommittedOffset(topic, partition, value.offset()))));
            List<Member> members = new ArrayList<>();
            boolean consumer = ConsumerSubscription.CONSUMER_PROTOCOL_TYPE.equals(g.protocolType);
            for (GroupMember m : g.members.values()) {
                Map<String, List<Integer>> assigned = consumer ? ConsumerAssignment.partitions(m.assignment) : null;
                members.add(new Member(m.memberId, m.clientId, m.clientHost, assigned == null ? Map.of() : assigned));
            }
            if (g.modern != null) {
                for (ConsumerGroupMember m : g.modern.members.values()) {
                    Map<String, List<Integer>> assigned = new java.util.TreeMap<>();
                    m.assigned.forEach((id, parts) -> {
                        ConsumerGroupTopics.TopicInfo t = topics.byId(id);
                        if (t != null) assigned.put(t.name(), new ArrayList<>(parts));
                    });
                    members.add(new Member(m.memberId, m.clientId, m.clientHost, assigned));
                }
            }
            out.add(new Group(g.groupId, g.modern != null ? g.modern.stateLabel() : g.state.label(), committed, members));
        }
        return new GroupsSnapshot(out);
    }

    public GroupsSnapshot {
        groups = List.copyOf(groups);
    }

    /**
     * One group: its id, its state as ListGroups names it (Empty, Stable, ...), its committed
     * offsets and its members.
     */
    public record Group(String groupId, String state, List<CommittedOffset> offsets, List<Member> members) {
        public Group {
            offsets = List.copyOf(offsets);
            members = List.copyOf(members);
        }
    }

    /**
     * A member of a group as DescribeGroups shows it: member id, client id, host, and the
     * partitions by topic its consumer assignment gives it (empty when it has none yet, or when
     * the group is not a consumer group or the bytes cannot be read).
     */
    public record Member(String memberId, String clientId, String host, Map<String, List<Integer>> assignment) {
        public Member {
            assignment = Collections.unmodifiableMap(new TreeMap<>(assignment));
        }
    }

    /** A committed offset of one partition. */
    public record CommittedOffset(String topic, int partition, long offset) {
    }

    /** How many committed offsets all groups hold together. */
    public int offsetCount() {
        int n = 0;
        for (Group g : groups) {
            n += g.offsets().size();
        }
        return n;
    }

    /** How many groups are in {@code state}. */
    public int countInState(String state) {
        int n = 0;
        for (Group g : groups) {
            if (g.state().equals(state)) {
                n++;
            }
        }
        return n;
    }
}
