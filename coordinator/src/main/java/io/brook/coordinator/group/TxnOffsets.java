package io.brook.coordinator.group;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.DurableWriter;
import io.brook.coordinator.runtime.EventLoop;
import io.brook.wire.protocol.Errors;

/**
 * Offsets committed inside a transaction (TxnOffsetCommit) and their fate when the transaction
 * ends: on COMMIT they are written to {@code __consumer_offsets} as ordinary commits and become
 * visible to OffsetFetch; on ABORT they are dropped. Until then OffsetFetch with
 * {@code require_stable} answers UNSTABLE_OFFSET_COMMIT for their partitions, and they do not
 * expire.
 *
 * <p>Validation follows Kafka's for transactional commits (KIP-447): an unknown group with
 * generation -1 becomes a simple group; a known member, instance id and generation are checked
 * when the request carries them; the group's state (a rebalance in progress) is not.
 *
 * <p><b>Durability.</b> A TxnOffsetCommit is answered once its offsets are held here, in memory;
 * they are written (fsynced) when the transaction commits, before the commit marker counts as
 * written, so a completed commit never loses them. Kafka writes them at once into a transactional
 * batch of {@code __consumer_offsets}. A restart drops what is held here; the transaction
 * coordinator therefore aborts, at start-up, every ongoing transaction that added a
 * {@code __consumer_offsets} partition (its producer is fenced and starts over from the offsets
 * committed before). What remains open is a crash in the milliseconds between a durable
 * PrepareCommit and the write of its offsets: the output is then committed without them, and the
 * input after the previously committed offsets is processed a second time.
 *
 * <p><b>Threading.</b> Owner thread of the group coordinator only.
 */
final class TxnOffsets {

    private final GroupCoordinatorConfig config;
    private final EventLoop loop;
    private final DurableWriter writer;
    private final ClassicGroups groups;
    /** producer id → group id → topic → partition → offset. */
    private final Map<Long, Map<String, Map<String, Map<Integer, CoordinatorRecords.OffsetValue>>>> pending = new HashMap<>();

    TxnOffsets(GroupCoordinatorConfig config, EventLoop loop, DurableWriter writer, ClassicGroups groups) {
        this.config = config;
        this.loop = loop;
        this.writer = writer;
        this.groups = groups;
    }

    List<PartitionResult> commit(String groupId, long producerId, int generationId, String memberId,
                                 String groupInstanceId, List<CommitPartition> partitions) {
        Errors error = validate(groupId, generationId, memberId, groupInstanceId);
        if (error == Errors.NONE && groups.getOrCreateWithinLimit(groupId) == null) error = Errors.COORDINATOR_NOT_AVAILABLE;
        List<PartitionResult> results = new ArrayList<>(partitions.size());
        if (error != Errors.NONE) {
            for (CommitPartition p : partitions) results.add(new PartitionResult(p.topic(), p.partition(), error));
            return results;
        }
        ClassicGroup group = groups.get(groupId);
        long now = loop.now();
        Map<String, Map<Integer, CoordinatorRecords.OffsetValue>> mine =
                pending.computeIfAbsent(producerId, x -> new HashMap<>()).computeIfAbsent(groupId, x -> new LinkedHashMap<>());
        for (CommitPartition p : partitions) {
            if (p.metadata() != null && p.metadata().length() > config.offsetMetadataMaxSize()) {
                results.add(new PartitionResult(p.topic(), p.partition(), Errors.OFFSET_METADATA_TOO_LARGE));
                continue;
            }
            mine.computeIfAbsent(p.topic(), x -> new HashMap<>()).put(p.partition(), new CoordinatorRecords.OffsetValue(
                    p.offset(), p.leaderEpoch(), p.metadata() == null ? "" : p.metadata(), now));
            group.pendingTransactionalOffsets.computeIfAbsent(p.topic(), t -> new HashSet<>()).add(p.partition());
            results.add(new PartitionResult(p.topic(), p.partition(), Errors.NONE));
        }
        return results;
    }

    private Errors validate(String groupId, int generationId, String memberId, String groupInstanceId) {
        if (groupId == null || groupId.isEmpty()) return Errors.INVALID_GROUP_ID;
        ClassicGroup group = groups.get(groupId);
        if (group == null) return generationId < 0 ? Errors.NONE : Errors.ILLEGAL_GENERATION;
        if (group.is(GroupState.DEAD)) return Errors.COORDINATOR_NOT_AVAILABLE;
        if (generationId < 0 && group.is(GroupState.EMPTY)) return Errors.NONE;
        boolean identified = generationId >= 0 || (memberId != null && !memberId.isEmpty()) || groupInstanceId != null;
        if (!identified) return Errors.NONE;
        if (groupInstanceId != null) {
            String current = group.staticMembers.get(groupInstanceId);
            if (current != null && !current.equals(memberId)) return Errors.FENCED_INSTANCE_ID;
        }
        if (memberId == null || !group.hasMember(memberId)) return Errors.UNKNOWN_MEMBER_ID;
        if (generationId != group.generation) return Errors.ILLEGAL_GENERATION;
        return Errors.NONE;
    }

    /**
     * Ends the transaction of {@code producerId} for the offsets it committed: written and applied
     * on commit, dropped on abort.
     *
     * @return completes once the committed offsets are durable (at once for an abort or when the
     *         producer committed no offsets); fails when they could not be written, and they stay
     *         pending so that the marker can be written again
     */
    CompletableFuture<Void> complete(long producerId, boolean commit) {
        Map<String, Map<String, Map<Integer, CoordinatorRecords.OffsetValue>>> byGroup = pending.get(producerId);
        if (byGroup == null) return CompletableFuture.completedFuture(null);
        if (!commit) {
            pending.remove(producerId);
            byGroup.forEach(this::clearPendingMarks);
            return CompletableFuture.completedFuture(null);
        }
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        for (Map.Entry<String, Map<String, Map<Integer, CoordinatorRecords.OffsetValue>>> g : byGroup.entrySet()) {
            int partition = config.partitionFor(g.getKey());
            List<CoordinatorRecord> records = new ArrayList<>();
            g.getValue().forEach((topic, parts) -> parts.forEach((p, v) -> records.add(new CoordinatorRecord(partition,
                    CoordinatorRecords.offsetKey(g.getKey(), topic, p), CoordinatorRecords.offsetValue(v)))));
            if (records.isEmpty()) continue;
            writes.add(writer.write(partition, records));
        }
        CompletableFuture<Void> all = CompletableFuture.allOf(writes.toArray(new CompletableFuture<?>[0]));
        CompletableFuture<Void> done = new CompletableFuture<>();
        all.whenComplete((v, e) -> {
            if (e != null) {
                done.completeExceptionally(e);
                return;
            }
            if (pending.remove(producerId, byGroup)) {
                byGroup.forEach((groupId, topics) -> {
                    ClassicGroup group = groups.getOrCreate(groupId);
                    topics.forEach((topic, parts) -> parts.forEach((p, value) -> group.putOffset(topic, p, value)));
                    clearPendingMarks(groupId, topics);
                });
            }
            done.complete(null);
        });
        return done;
    }

    private void clearPendingMarks(String groupId, Map<String, Map<Integer, CoordinatorRecords.OffsetValue>> topics) {
        ClassicGroup group = groups.get(groupId);
        if (group == null) return;
        topics.forEach((topic, parts) -> parts.keySet().forEach(p -> {
            if (!stillPendingElsewhere(groupId, topic, p)) {
                Set<Integer> s = group.pendingTransactionalOffsets.get(topic);
                if (s != null && s.remove(p) && s.isEmpty()) group.pendingTransactionalOffsets.remove(topic);
            }
        }));
    }

    /** Whether another producer still has a pending offset for this partition of the group. */
    private boolean stillPendingElsewhere(String groupId, String topic, int partition) {
        for (Map<String, Map<String, Map<Integer, CoordinatorRecords.OffsetValue>>> g : pending.values()) {
            Map<String, Map<Integer, CoordinatorRecords.OffsetValue>> t = g.get(groupId);
            if (t == null) continue;
            Map<Integer, CoordinatorRecords.OffsetValue> ps = t.get(topic);
            if (ps != null && ps.containsKey(partition)) return true;
        }
        return false;
    }
}
