package io.brook.coordinator.group;

import io.brook.coordinator.runtime.CoordinatorLoader;
import io.brook.coordinator.runtime.CoordinatorRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.BiConsumer;

/**
 * Rebuilds groups and committed offsets from the records of {@code __consumer_offsets} as the
 * {@link CoordinatorLoader} reads them after start-up, partition by partition, in log order: an
 * offset record sets or (tombstone) removes one committed offset, a group record replaces the group's generation, protocol, leader and members or (tombstone) forgets the group.
 * A transactional offset record (a TxnOffsetCommit) is pending until the COMMIT or ABORT marker of
 * its producer found later in the log commits or drops it ({@link TxnOffsets}, Kafka's rules in
 * {@link PendingTxnOffsets}); one whose marker is not in the log stays pending, for the marker the
 * transaction coordinator writes after the restart.
 * The records of a KIP-848 consumer group ({@link ConsumerGroupRecords}) rebuild its epochs,
 * members, target and current assignments; once the partition is loaded
 * {@link ConsumerGroupHeartbeats#loaded} rebuilds who holds what and arms the session timers.
 * A loaded classic group with members is Stable, one without is Empty. Records this code cannot read
 * (unknown key version, malformed bytes) are counted and skipped.
 *
 * <p><b>Upgrade.</b> Records in Brook's earlier layout ({@link LegacyCoordinatorRecords}) load
 * like Kafka's. The keys of those still in force are remembered, and once their partition is
 * loaded {@link #migration} gives the records that move them to Kafka's layout: the current state
 * under Kafka's key, then a tombstone for the old key (without it, compaction would keep the old
 * record, and once the new tombstones of a later deletion were cleaned, a replay would bring the
 * old state back). They are handed to the coordinator's writer through the {@code migrate} hook.
 *
 * <p><b>Threading.</b> Runs on the coordinator's owner thread, between requests; while a partition
 * loads, the coordinator answers no request for its groups. {@link #loaded} then arms the session
 * timers of that partition's members and moves its earlier-layout records; {@link #failed}
 * forgets the groups of a partition whose load failed, and {@link #unloaded} those of a partition
 * this node no longer owns (with their timers and parked requests, see {@link Rebalance#unload}).
 */
final class GroupReplay implements CoordinatorLoader.Target {

    private final ClassicGroups groups;
    private final Rebalance rebalance;
    private final TxnOffsets txnOffsets;
    private int skipped;
    /** Keys in the earlier layout whose record is in force, by the key they stand for. */
    private final Map<CoordinatorRecords.Key, CoordinatorRecord> legacy = new LinkedHashMap<>();

    private final BiConsumer<Integer, List<CoordinatorRecord>> migrate;
    private final ConsumerGroupHeartbeats consumerGroups;

    GroupReplay(ClassicGroups groups, Rebalance rebalance, TxnOffsets txnOffsets, ConsumerGroupHeartbeats consumerGroups,
                BiConsumer<Integer, List<CoordinatorRecord>> migrate) {
        this.groups = groups;
        this.rebalance = rebalance;
        this.txnOffsets = txnOffsets;
        this.consumerGroups = consumerGroups;
        this.migrate = migrate;
    }

    /** Records skipped as unreadable so far. */
    int skipped() {
        return skipped;
    }

    /** Applies one record read back from the log. */
    @Override
    public void replay(CoordinatorRecord record) {
        if (record.isMarker()) {
            txnOffsets.applyMarker(record.partition(), record.producerId(), record.marker() == CoordinatorRecord.Marker.COMMIT);
            return;
        }
        try {
            CoordinatorRecords.Key key = CoordinatorRecords.readKey(record.key());
            if (key == null) {
                skipped++;
                return;
            }
            boolean old = key instanceof CoordinatorRecords.Legacy;
            if (key instanceof CoordinatorRecords.Legacy l) {
                key = l.key();
                if (record.isTombstone() && !legacy.containsKey(key)) {
                    // the tombstone with which a migration retired an old key, after it wrote the
                    // key's state under Kafka's key: that state stays
                    return;
                }
            } else {
                legacy.remove(key); // moved already (or superseded): nothing of it to move again
            }
            if (key instanceof ConsumerGroupRecords.ModernKey k) {
                replayConsumerGroup(k, record);
                return;
            }
            if (key instanceof CoordinatorRecords.OffsetKey k) {
                if (record.isTombstone()) {
                    ClassicGroup g = groups.get(k.group());
                    if (g != null) g.removeOffset(k.topic(), k.partition());
                } else {
                    CoordinatorRecords.OffsetValue v = old ? LegacyCoordinatorRecords.readOffsetValue(record.value())
                            : CoordinatorRecords.readOffsetValue(record.value());
                    if (record.isTransactional()) {
                        txnOffsets.applyPending(k.group(), record.producerId(), k.topic(), k.partition(), v);
                    } else {
                        groups.getOrCreate(k.group()).putOffset(k.topic(), k.partition(), v);
                    }
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

    /** A record of a KIP-848 consumer group ({@link ConsumerGroupRecords}). */
    private void replayConsumerGroup(ConsumerGroupRecords.ModernKey k, CoordinatorRecord record) {
        ClassicGroup g = groups.get(k.group());
        if (record.isTombstone()) {
            if (g == null || g.modern == null) return;
            ConsumerGroup cg = g.modern;
            switch (k.type()) {
                case ConsumerGroupRecords.GROUP_EPOCH -> {
                    if (cg.isEmpty()) g.modern = null;
                }
                case ConsumerGroupRecords.MEMBER -> cg.members.remove(k.memberId());
                case ConsumerGroupRecords.TARGET_MEMBER -> {
                    Map<String, Map<UUID, Set<Integer>>> target = new HashMap<>(cg.target);
                    target.remove(k.memberId());
                    cg.target = target;
                }
                default -> { }
            }
            return;
        }
        if (g == null) g = groups.getOrCreate(k.group());
        if (g.modern == null) g.modern = new ConsumerGroup();
        ConsumerGroup cg = g.modern;
        switch (k.type()) {
            case ConsumerGroupRecords.GROUP_EPOCH -> cg.groupEpoch = ConsumerGroupRecords.readEpoch(record.value());
            case ConsumerGroupRecords.TARGET_EPOCH -> cg.assignmentEpoch = ConsumerGroupRecords.readEpoch(record.value());
            case ConsumerGroupRecords.MEMBER ->
                    ConsumerGroupRecords.readMember(record.value(), cg.members.computeIfAbsent(k.memberId(), ConsumerGroupMember::new));
            case ConsumerGroupRecords.TARGET_MEMBER -> {
                Map<String, Map<UUID, Set<Integer>>> target = new HashMap<>(cg.target);
                target.put(k.memberId(), ConsumerGroupRecords.readTarget(record.value()));
                cg.target = target;
            }
            case ConsumerGroupRecords.CURRENT_ASSIGNMENT -> ConsumerGroupRecords.readCurrentAssignment(record.value(),
                    cg.members.computeIfAbsent(k.memberId(), ConsumerGroupMember::new));
            default -> throw new IllegalArgumentException("record type " + k.type());
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
     * The records that move what {@code partition} holds in force in the earlier layout to Kafka's,
     * in one batch (each key's new record before the old key's tombstone, so that a crash between
     * them loses nothing), and forgets those keys. Empty when there is nothing to move. Call once
     * the partition is loaded.
     */
    List<CoordinatorRecord> migration(int partition) {
        List<CoordinatorRecord> batch = new ArrayList<>();
        Iterator<Map.Entry<CoordinatorRecords.Key, CoordinatorRecord>> it = legacy.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<CoordinatorRecords.Key, CoordinatorRecord> e = it.next();
            CoordinatorRecord old = e.getValue();
            if (old.partition() != partition) continue;
            it.remove();
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
        return batch;
    }

    /**
     * After a partition's last record: its loaded members must heartbeat within their session
     * timeout from now, and what it holds in the earlier layout is moved to Kafka's.
     */
    @Override
    public void loaded(int partition) {
        for (ClassicGroup g : groups.all()) {
            if (g.partition != partition) continue;
            for (GroupMember m : g.members.values()) rebalance.scheduleSession(g, m.memberId, m.sessionTimeoutMs);
            if (g.modern != null) consumerGroups.loaded(g);
        }
        List<CoordinatorRecord> moves = migration(partition);
        if (!moves.isEmpty()) migrate.accept(partition, moves);
    }

    /** A partition's load failed: what was applied of it is dropped (no timer was armed for it yet). */
    @Override
    public void failed(int partition, Throwable cause) {
        for (ClassicGroup g : groups.snapshot()) {
            if (g.partition == partition) groups.remove(g.groupId);
        }
        legacy.values().removeIf(r -> r.partition() == partition);
    }

    /** The partition is no longer owned here: its groups go, loaded or partly loaded. */
    @Override
    public void unloaded(int partition) {
        rebalance.unload(partition);
        legacy.values().removeIf(r -> r.partition() == partition);
    }
}
