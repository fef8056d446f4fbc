package io.brook.coordinator.group;

import io.brook.coordinator.runtime.CoordinatorRecord;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Rebuilds groups and committed offsets from the records of {@code __consumer_offsets} at start-up,
 * in log order: an offset record sets or (tombstone) removes one committed offset, a group record
 * replaces the group's generation, protocol, leader and members or (tombstone) forgets the group.
 * A loaded group with members is Stable, one without is Empty. Records this code cannot read
 * (unknown key version, malformed bytes) are counted and skipped.
 *
 * <p><b>Upgrade.</b> Records in Brook's earlier layout ({@link LegacyCoordinatorRecords}) load
 * like Kafka's. The keys of those still in force are remembered, and {@link #migration} then gives
 * the records that move them to Kafka's layout: the current state under Kafka's key, then a
 * tombstone for the old key (without it, compaction would keep the old record, and once the new
 * tombstones of a later deletion were cleaned, a replay would bring the old state back).
 *
 * <p><b>Threading.</b> Runs on the thread that starts the coordinator, before its owner thread
 * exists; {@link #complete} then arms the loaded members' session timers.
 */
final class GroupReplay {

    private final ClassicGroups groups;
    private final Rebalance rebalance;
    private int skipped;
    /** Keys in the earlier layout whose record is in force, by the key they stand for. */
    private final Map<CoordinatorRecords.Key, CoordinatorRecord> legacy = new LinkedHashMap<>();

    GroupReplay(ClassicGroups groups, Rebalance rebalance) {
        this.groups = groups;
        this.rebalance = rebalance;
    }

    /** Records skipped as unreadable so far. */
    int skipped() {
        return skipped;
    }

    /** Applies one record read back from the log. */
    void apply(CoordinatorRecord record) {
        try {
            CoordinatorRecords.Key key = CoordinatorRecords.readKey(record.key());
            if (key == null) {
                skipped++;
                return;
            }
            boolean old = key instanceof CoordinatorRecords.Legacy;
            if (key instanceof CoordinatorRecords.Legacy l) {
                key = l.key();
            }
            if (key instanceof CoordinatorRecords.OffsetKey k) {
                if (record.isTombstone()) {
                    ClassicGroup g = groups.get(k.group());
                    if (g != null) g.removeOffset(k.topic(), k.partition());
                } else {
                    CoordinatorRecords.OffsetValue v = old ? LegacyCoordinatorRecords.readOffsetValue(record.value())
                            : CoordinatorRecords.readOffsetValue(record.value());
                    groups.getOrCreate(k.group()).putOffset(k.topic(), k.partition(), v);
                }
            } else if (key instanceof CoordinatorRecords.GroupKey k) {
                if (record.isTombstone()) {
                    groups.remove(k.group());
                } else {
                    load(groups.getOrCreate(k.group()), old ? LegacyCoordinatorRecords.readGroupValue(record.value())
                            : CoordinatorRecords.readGroupValue(record.value()));
                }
            }
            if (old) {
                if (record.isTombstone()) {
                    legacy.remove(key);
                } else {
                    legacy.put(key, record);
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

    /**
     * After {@link #complete}: the records that move what is in force in the earlier layout to
     * Kafka's, each key's in one batch of its partition (the new record before the old key's
     * tombstone, so that a crash between them loses nothing). Empty when there is nothing to move.
     */
    Map<Integer, List<CoordinatorRecord>> migration() {
        Map<Integer, List<CoordinatorRecord>> out = new LinkedHashMap<>();
        for (Map.Entry<CoordinatorRecords.Key, CoordinatorRecord> e : legacy.entrySet()) {
            CoordinatorRecord old = e.getValue();
            List<CoordinatorRecord> batch = out.computeIfAbsent(old.partition(), p -> new ArrayList<>());
            ClassicGroup g = groups.get(e.getKey().group());
            if (e.getKey() instanceof CoordinatorRecords.OffsetKey k) {
                CoordinatorRecords.OffsetValue v = g == null ? null : g.offset(k.topic(), k.partition());
                if (v != null) {
                    batch.add(new CoordinatorRecord(old.partition(),
                            CoordinatorRecords.offsetKey(k.group(), k.topic(), k.partition()),
                            CoordinatorRecords.offsetValue(v)));
                }
            } else if (g != null) {
                batch.add(g.metadataRecord(null));
            }
            batch.add(new CoordinatorRecord(old.partition(), old.key(), null));
        }
        return out;
    }

    /** After the last record: members of loaded groups must heartbeat within their session timeout from now. */
    void complete() {
        for (ClassicGroup g : groups.all()) {
            for (GroupMember m : g.members.values()) rebalance.scheduleSession(g, m.memberId, m.sessionTimeoutMs);
        }
    }
}
