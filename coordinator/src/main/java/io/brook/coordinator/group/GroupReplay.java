package io.brook.coordinator.group;

import io.brook.coordinator.runtime.CoordinatorLoader;
import io.brook.coordinator.runtime.CoordinatorRecord;

/**
 * Rebuilds groups and committed offsets from the records of {@code __consumer_offsets} as the
 * {@link CoordinatorLoader} reads them after start-up, partition by partition, in log order: an offset record sets or (tombstone) removes one committed offset, a group record
 * replaces the group's generation, protocol, leader and members or (tombstone) forgets the group.
 * A loaded group with members is Stable, one without is Empty. Records this code cannot read
 * (unknown key version, malformed bytes) are counted and skipped.
 *
 * <p><b>Threading.</b> Runs on the coordinator's owner thread, between requests; while a partition
 * loads, the coordinator answers no request for its groups. {@link #loaded} then arms the session
 * timers of that partition's members; {@link #failed} forgets the groups of a partition whose
 * load failed.
 */
final class GroupReplay implements CoordinatorLoader.Target {

    private final ClassicGroups groups;
    private final Rebalance rebalance;
    private int skipped;

    GroupReplay(ClassicGroups groups, Rebalance rebalance) {
        this.groups = groups;
        this.rebalance = rebalance;
    }

    /** Records skipped as unreadable so far. */
    int skipped() {
        return skipped;
    }

    /** Applies one record read back from the log. */
    @Override
    public void replay(CoordinatorRecord record) {
        try {
            CoordinatorRecords.Key key = CoordinatorRecords.readKey(record.key());
            if (key == null) {
                skipped++;
                return;
            }
            if (key instanceof CoordinatorRecords.OffsetKey k) {
                if (record.isTombstone()) {
                    ClassicGroup g = groups.get(k.group());
                    if (g != null) g.removeOffset(k.topic(), k.partition());
                } else {
                    CoordinatorRecords.OffsetValue v = CoordinatorRecords.readOffsetValue(record.value());
                    groups.getOrCreate(k.group()).putOffset(k.topic(), k.partition(), v);
                }
            } else if (key instanceof CoordinatorRecords.GroupKey k) {
                if (record.isTombstone()) {
                    groups.remove(k.group());
                } else {
                    load(groups.getOrCreate(k.group()), CoordinatorRecords.readGroupValue(record.value()));
                }
            }
        } catch (IllegalArgumentException e) {
            skipped++;
        }
    }

    private static void load(ClassicGroup group, CoordinatorRecords.GroupValue v) {
        group.clearMembers();
        group.protocolType = v.protocolType();
        group.generation = v.generation();
        group.protocolName = v.protocolName();
        group.leaderId = v.leader();
        group.stateTimestamp = v.stateTimestamp();
        for (CoordinatorRecords.MemberValue m : v.members()) {
            GroupMember member = new GroupMember(m.memberId(), m.instanceId(), m.clientId(), m.clientHost(),
                    m.rebalanceTimeoutMs(), m.sessionTimeoutMs(), m.protocols());
            member.assignment = m.assignment() == null ? GroupMember.EMPTY_BYTES : m.assignment();
            group.load(member);
        }
        group.state = group.members.isEmpty() ? GroupState.EMPTY : GroupState.STABLE;
    }

    /** After a partition's last record: its loaded members must heartbeat within their session timeout from now. */
    @Override
    public void loaded(int partition) {
        for (ClassicGroup g : groups.all()) {
            if (g.partition != partition) continue;
            for (GroupMember m : g.members.values()) rebalance.scheduleSession(g, m.memberId, m.sessionTimeoutMs);
        }
    }

    /** A partition's load failed: what was applied of it is dropped (no timer was armed for it yet). */
    @Override
    public void failed(int partition, Throwable cause) {
        for (ClassicGroup g : groups.snapshot()) {
            if (g.partition == partition) groups.remove(g.groupId);
        }
    }
}
