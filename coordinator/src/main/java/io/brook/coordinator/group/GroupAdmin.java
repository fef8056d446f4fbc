package io.brook.coordinator.group;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.DurableWriter;
import io.brook.coordinator.runtime.EventLoop;
import io.brook.wire.protocol.Errors;

/**
 * The admin APIs over groups: DescribeGroups, ListGroups and DeleteGroups.
 *
 * <p><b>Threading.</b> Not thread-safe: every method and log-write continuation runs on the
 * coordinator's owner thread; returned futures complete there.
 *
 * <p><b>Durability.</b> A group being deleted is Dead from the moment its tombstones (every offset,
 * then the group record) are handed to the log, so that no request can use it meanwhile; it is
 * dropped from memory and the deletion answered once they are durable. If the write fails the group
 * is Empty again, as it was, and the answer is COORDINATOR_NOT_AVAILABLE.
 */
final class GroupAdmin {

    static final String GROUP_TYPE_CLASSIC = "classic";
    static final String GROUP_TYPE_CONSUMER = "consumer";

    private final EventLoop loop;
    private final DurableWriter writer;
    private final ClassicGroups groups;

    GroupAdmin(EventLoop loop, DurableWriter writer, ClassicGroups groups) {
        this.loop = loop;
        this.writer = writer;
        this.groups = groups;
    }

    // ------------------------------------------------------------------ DescribeGroups / ListGroups

    List<DescribedGroup> describe(List<String> groupIds, short version) {
        List<DescribedGroup> out = new ArrayList<>(groupIds.size());
        for (String id : groupIds) {
            ClassicGroup group = groups.get(id);
            if (group == null) {
                if (version >= 6) {
                    out.add(new DescribedGroup(Errors.GROUP_ID_NOT_FOUND, "Group " + id + " not found.", id,
                            GroupState.DEAD.label(), "", "", List.of()));
                } else {
                    out.add(new DescribedGroup(Errors.NONE, null, id, GroupState.DEAD.label(), "", "", List.of()));
                }
                continue;
            }
            if (group.modern != null) {
                // a consumer group: ConsumerGroupDescribe describes it
                out.add(new DescribedGroup(version >= 6 ? Errors.GROUP_ID_NOT_FOUND : Errors.NONE,
                        version >= 6 ? "Group " + id + " is not a classic group." : null, id,
                        GroupState.DEAD.label(), "", "", List.of()));
                continue;
            }
            boolean stable = group.is(GroupState.STABLE);
            List<DescribedMember> members = new ArrayList<>(group.members.size());
            for (GroupMember m : group.members.values()) {
                byte[] metadata = stable ? m.metadataFor(group.protocolName) : null;
                members.add(new DescribedMember(m.memberId, m.instanceId, m.clientId, m.clientHost,
                        metadata == null ? GroupMember.EMPTY_BYTES : metadata,
                        stable ? m.assignment : GroupMember.EMPTY_BYTES));
            }
            out.add(new DescribedGroup(Errors.NONE, null, id, group.state.label(),
                    group.protocolType == null ? "" : group.protocolType,
                    stable && group.protocolName != null ? group.protocolName : "", members));
        }
        return out;
    }

    /** Filters are case-insensitive; an empty or null filter matches everything. Sorted by group id. */
    List<ListedGroup> list(List<String> statesFilter, List<String> typesFilter) {
        List<ListedGroup> out = new ArrayList<>();
        for (ClassicGroup g : groups.all()) {
            if (g.is(GroupState.DEAD)) continue;
            String state = g.modern != null ? g.modern.stateLabel() : g.state.label();
            String type = g.modern != null ? GROUP_TYPE_CONSUMER : GROUP_TYPE_CLASSIC;
            if (statesFilter != null && !statesFilter.isEmpty()
                    && statesFilter.stream().noneMatch(s -> s.equalsIgnoreCase(state))) {
                continue;
            }
            if (typesFilter != null && !typesFilter.isEmpty()
                    && typesFilter.stream().noneMatch(t -> t.equalsIgnoreCase(type))) {
                continue;
            }
            String protocolType = g.modern != null ? ConsumerGroup.PROTOCOL_TYPE : g.protocolType == null ? "" : g.protocolType;
            out.add(new ListedGroup(g.groupId, protocolType, state, type));
        }
        out.sort((a, b) -> a.groupId().compareTo(b.groupId()));
        return out;
    }

    // ------------------------------------------------------------------ DeleteGroups

    /** @return per group, in request order, the error once the deletion is durable */
    CompletableFuture<List<Map.Entry<String, Errors>>> delete(List<String> groupIds) {
        List<CompletableFuture<Map.Entry<String, Errors>>> each = new ArrayList<>(groupIds.size());
        for (String id : groupIds) each.add(deleteGroup(id));
        return CompletableFuture.allOf(each.toArray(CompletableFuture[]::new)).thenApply(v -> {
            List<Map.Entry<String, Errors>> out = new ArrayList<>(each.size());
            for (CompletableFuture<Map.Entry<String, Errors>> f : each) out.add(f.join());
            return out;
        });
    }

    private CompletableFuture<Map.Entry<String, Errors>> deleteGroup(String id) {
        // the empty id is a group (its standalone commits'), as in Kafka
        if (id == null) return CompletableFuture.completedFuture(Map.entry(String.valueOf(id), Errors.INVALID_GROUP_ID));
        ClassicGroup group = groups.get(id);
        if (group == null || group.is(GroupState.DEAD)) return CompletableFuture.completedFuture(Map.entry(id, Errors.GROUP_ID_NOT_FOUND));
        if (!group.hasNoMembers()) return CompletableFuture.completedFuture(Map.entry(id, Errors.NON_EMPTY_GROUP));
        List<CoordinatorRecord> records = new ArrayList<>();
        group.offsets.forEach((topic, parts) -> parts.keySet().forEach(p -> records.add(group.offsetTombstone(topic, p))));
        if (group.modern != null) records.addAll(ConsumerGroupHeartbeats.tombstones(group));
        records.add(group.metadataTombstone());
        group.transitionTo(GroupState.DEAD, loop.now());
        return writer.write(group.partition, records).handle((v, e) -> {
            if (e != null) {
                group.state = GroupState.EMPTY; // nothing was written: the group is back as it was
                return Map.entry(id, Errors.COORDINATOR_NOT_AVAILABLE);
            }
            if (groups.isCurrent(group)) groups.remove(id);
            return Map.entry(id, Errors.NONE);
        });
    }
}
