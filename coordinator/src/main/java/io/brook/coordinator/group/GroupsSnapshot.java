package io.brook.coordinator.group;

import java.util.ArrayList;
import java.util.List;

/**
 * What the group coordinator holds, at one moment, for metrics and lag: every group with its
 * state and committed offsets. Taken on the coordinator's thread ({@link GroupCoordinator#snapshot});
 * immutable.
 */
public record GroupsSnapshot(List<Group> groups) {

    /** What {@code groups} hold now: each group's state and committed offsets. Coordinator thread. */
    static GroupsSnapshot of(Iterable<ClassicGroup> groups) {
        List<Group> out = new ArrayList<>();
        for (ClassicGroup g : groups) {
            List<CommittedOffset> committed = new ArrayList<>();
            g.offsets.forEach((topic, partitions) -> partitions.forEach((partition, value) ->
                    committed.add(new CommittedOffset(topic, partition, value.offset()))));
            out.add(new Group(g.groupId, g.state.label(), committed));
        }
        return new GroupsSnapshot(out);
    }

    public GroupsSnapshot {
        groups = List.copyOf(groups);
    }

    /** One group: its id, its state as ListGroups names it (Empty, Stable, ...) and its committed offsets. */
    public record Group(String groupId, String state, List<CommittedOffset> offsets) {
        public Group {
            offsets = List.copyOf(offsets);
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
