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
import io.brook.wire.message.TxnOffsetCommitResponse;
import io.brook.wire.protocol.Errors;

/**
 * Offsets committed inside a transaction (TxnOffsetCommit) and their fate when the transaction
 * ends, as Kafka keeps them: a TxnOffsetCommit is written at once to the group's partition of
 * {@code __consumer_offsets} as a transactional batch of the producer (its id and epoch, Kafka's
 * offset record layout), and answered once that batch is durable; the offsets are then pending
 * (see {@link PendingTxnOffsets}: OffsetFetch with {@code require_stable} answers
 * UNSTABLE_OFFSET_COMMIT for their partitions, and they do not expire). The end of the
 * transaction is a COMMIT or ABORT marker that the transaction coordinator has written into that
 * partition ({@link #complete}); once the marker is durable the pending offsets become committed
 * or are dropped. At load, {@link GroupReplay} applies the same records in log order, so pending
 * offsets of transactions still open at a restart are pending again, and the marker written
 * after the restart completes them.
 *
 * <p>Validation follows Kafka's for transactional commits (KIP-447): an unknown group with
 * generation -1 becomes a simple group; a known member, instance id and generation are checked
 * when the request carries them; the group's state (a rebalance in progress) is not.
 *
 * <p><b>Threading.</b> Owner thread of the group coordinator only.
 */
final class TxnOffsets {

    private final GroupCoordinatorConfig config;
    private final EventLoop loop;
    private final DurableWriter writer;
    private final ClassicGroups groups;
    /** producer id → ids of the groups that may hold its pending offsets. */
    private final Map<Long, Set<String>> groupsOf = new HashMap<>();

    TxnOffsets(GroupCoordinatorConfig config, EventLoop loop, DurableWriter writer, ClassicGroups groups) {
        this.config = config;
        this.loop = loop;
        this.writer = writer;
        this.groups = groups;
    }

    /** TxnOffsetCommit: completes, with a result per partition, once the offsets are durable (or not written). */
    CompletableFuture<List<PartitionResult>> commit(String groupId, long producerId, short producerEpoch, int generationId,
                                                    String memberId, String groupInstanceId, List<CommitPartition> partitions) {
        Errors error = validate(groupId, generationId, memberId, groupInstanceId, partitions);
        if (error == Errors.NONE && groups.getOrCreateWithinLimit(groupId) == null) error = Errors.COORDINATOR_NOT_AVAILABLE;
        List<PartitionResult> results = new ArrayList<>(partitions.size());
        if (error != Errors.NONE) {
            for (CommitPartition p : partitions) results.add(new PartitionResult(p.topic(), p.partition(), error));
            return CompletableFuture.completedFuture(results);
        }
        int partition = config.partitionFor(groupId);
        long now = loop.now();
        List<CoordinatorRecord> records = new ArrayList<>();
        List<CommitPartition> accepted = new ArrayList<>();
        for (CommitPartition p : partitions) {
            if (p.metadata() != null && p.metadata().length() > config.offsetMetadataMaxSize()) {
                results.add(new PartitionResult(p.topic(), p.partition(), Errors.OFFSET_METADATA_TOO_LARGE));
                continue;
            }
            results.add(new PartitionResult(p.topic(), p.partition(), Errors.NONE));
            accepted.add(p);
            records.add(CoordinatorRecord.transactional(partition, producerId, producerEpoch,
                    CoordinatorRecords.offsetKey(groupId, p.topic(), p.partition()),
                    CoordinatorRecords.offsetValue(value(p, now))));
        }
        if (records.isEmpty()) return CompletableFuture.completedFuture(results);
        return writer.write(partition, records).handle((v, e) -> {
            if (e != null) {
                Errors failed = GroupOffsets.commitAppendError(e);
                List<PartitionResult> out = new ArrayList<>(results.size());
                for (PartitionResult r : results) {
                    out.add(r.error() == Errors.NONE ? new PartitionResult(r.topic(), r.partition(), failed) : r);
                }
                return out;
            }
            for (CommitPartition p : accepted) applyPending(groupId, producerId, p.topic(), p.partition(), value(p, now));
            return results;
        });
    }

    private static CoordinatorRecords.OffsetValue value(CommitPartition p, long now) {
        return new CoordinatorRecords.OffsetValue(p.offset(), p.leaderEpoch(), p.metadata() == null ? "" : p.metadata(), now);
    }

    private Errors validate(String groupId, int generationId, String memberId, String groupInstanceId,
                            List<CommitPartition> partitions) {
        if (groupId == null || groupId.isEmpty()) return Errors.INVALID_GROUP_ID;
        ClassicGroup group = groups.get(groupId);
        if (group == null) return generationId < 0 ? Errors.NONE : Errors.ILLEGAL_GENERATION;
        if (group.is(GroupState.DEAD)) return Errors.COORDINATOR_NOT_AVAILABLE;
        if (group.modern != null) return group.modern.validateCommit(generationId, memberId, (short) 0, true, partitions);
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

    /** A transactional offset record of {@code producerId}, durable (live) or read back (load). */
    void applyPending(String groupId, long producerId, String topic, int partition, CoordinatorRecords.OffsetValue value) {
        groups.getOrCreate(groupId).txnOffsets.add(producerId, topic, partition, value);
        groupsOf.computeIfAbsent(producerId, x -> new HashSet<>()).add(groupId);
    }

    /**
     * The marker of {@code producerId}'s transaction in {@code partition} of {@code __consumer_offsets},
     * durable (live) or read back (load): the producer's pending offsets in the groups of that
     * partition are committed or dropped.
     */
    void applyMarker(int partition, long producerId, boolean commit) {
        Set<String> ids = groupsOf.get(producerId);
        if (ids == null) return;
        ids.removeIf(id -> {
            ClassicGroup g = groups.get(id);
            if (g == null) return true;
            if (g.partition != partition) return false;
            g.txnOffsets.end(producerId, commit, g::putOffset);
            return true;
        });
        if (ids.isEmpty()) groupsOf.remove(producerId);
    }

    /**
     * {@link #complete} in each of {@code partitions} of {@code __consumer_offsets} (those out of
     * range are skipped); a partition whose {@code notLoaded} error is not NONE fails the result
     * with {@link CoordinatorMarkerException}, so that the caller writes the markers again.
     */
    CompletableFuture<Void> completeIn(Set<Integer> partitions, java.util.function.IntFunction<Errors> notLoaded,
                                       long producerId, short producerEpoch, boolean commit) {
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        for (int p : partitions) {
            if (p < 0 || p >= config.offsetsTopicPartitions()) {
                continue;
            }
            Errors e = notLoaded.apply(p);
            writes.add(e != Errors.NONE
                    ? CompletableFuture.failedFuture(new CoordinatorMarkerException(e,
                            GroupCoordinatorConfig.OFFSETS_TOPIC + "-" + p + " is not loaded"))
                    : complete(p, producerId, producerEpoch, commit));
        }
        return CompletableFuture.allOf(writes.toArray(new CompletableFuture<?>[0]));
    }

    /**
     * Writes the marker of {@code producerId}'s transaction into {@code partition} and applies it
     * once durable.
     *
     * @return completes once the marker is durable and applied; fails when it could not be written
     */
    CompletableFuture<Void> complete(int partition, long producerId, short producerEpoch, boolean commit) {
        return writer.write(partition, List.of(CoordinatorRecord.marker(partition, producerId, producerEpoch, commit)))
                .thenRun(() -> applyMarker(partition, producerId, commit));
    }

    /** The TxnOffsetCommit answer: each partition with its error, grouped by topic. */
    static TxnOffsetCommitResponse toResponse(List<PartitionResult> results) {
        Map<String, TxnOffsetCommitResponse.TxnOffsetCommitResponseTopic> topics = new LinkedHashMap<>();
        for (PartitionResult r : results) {
            topics.computeIfAbsent(r.topic(), n -> new TxnOffsetCommitResponse.TxnOffsetCommitResponseTopic().name(n))
                    .partitions().add(new TxnOffsetCommitResponse.TxnOffsetCommitResponsePartition()
                            .partitionIndex(r.partition()).errorCode(r.error().code()));
        }
        return new TxnOffsetCommitResponse().topics(new ArrayList<>(topics.values()));
    }
}
