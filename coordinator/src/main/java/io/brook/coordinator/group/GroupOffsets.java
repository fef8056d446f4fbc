package io.brook.coordinator.group;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.IntPredicate;

import io.brook.coordinator.runtime.CoordinatorLogException;
import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.DurableWriter;
import io.brook.coordinator.runtime.EventLoop;
import io.brook.wire.protocol.Errors;

/**
 * The committed offsets of every group: OffsetCommit, OffsetFetch and OffsetDelete, the periodic
 * expiry of old offsets, and the partitions whose transactional offset commit is still pending
 * (an OffsetFetch with {@code require_stable} gets UNSTABLE_OFFSET_COMMIT for them).
 *
 * <p><b>Threading.</b> Not thread-safe: every method, the expiry timer and every log-write
 * continuation run on the coordinator's owner thread; returned futures complete there.
 *
 * <p><b>Durability.</b> A commit is answered, and its offsets become visible to OffsetFetch, only
 * once its records are durable; if the write fails the committed offsets stay as they were and
 * the answer carries an error derived from the log's {@link CoordinatorLogException.Reason}.
 * OffsetDelete and expiry remove offsets from memory only once their tombstones are durable
 * (expiry tries again at its next run when the write fails).
 */
final class GroupOffsets {

    private final GroupCoordinatorConfig config;
    private final EventLoop loop;
    private final DurableWriter writer;
    private final ClassicGroups groups;
    private final Rebalance rebalance;
    /** Whether a partition of {@code __consumer_offsets} is loaded: expiry leaves the others alone. */
    private final IntPredicate loaded;

    GroupOffsets(GroupCoordinatorConfig config, EventLoop loop, DurableWriter writer, ClassicGroups groups,
                 Rebalance rebalance, IntPredicate loaded) {
        this.config = config;
        this.loop = loop;
        this.writer = writer;
        this.groups = groups;
        this.rebalance = rebalance;
        this.loaded = loaded;
    }

    // ------------------------------------------------------------------ OffsetCommit

    CompletableFuture<List<PartitionResult>> commit(String groupId, int generationId, String memberId,
                                                    String groupInstanceId, List<CommitPartition> partitions,
                                                    short version) {
        CompletableFuture<List<PartitionResult>> future = new CompletableFuture<>();
        Errors groupError = validateCommit(groupId, generationId, memberId, groupInstanceId, version, partitions);
        if (groupError != Errors.NONE) return CompletableFuture.completedFuture(allFailed(partitions, groupError));
        ClassicGroup group = groups.getOrCreateWithinLimit(groupId);
        if (group == null) return CompletableFuture.completedFuture(allFailed(partitions, Errors.COORDINATOR_NOT_AVAILABLE));
        if (generationId >= 0) {
            GroupMember m = group.members.get(memberId);
            if (m != null) rebalance.scheduleSession(group, m.memberId, m.sessionTimeoutMs);
        }
        long now = loop.now();
        List<CoordinatorRecord> records = new ArrayList<>();
        List<CommitPartition> accepted = new ArrayList<>();
        List<PartitionResult> results = new ArrayList<>(partitions.size());
        for (CommitPartition p : partitions) {
            if (p.metadata() != null && p.metadata().length() > config.offsetMetadataMaxSize()) {
                results.add(new PartitionResult(p.topic(), p.partition(), Errors.OFFSET_METADATA_TOO_LARGE));
                continue;
            }
            accepted.add(p);
            results.add(new PartitionResult(p.topic(), p.partition(), Errors.NONE));
            records.add(new CoordinatorRecord(group.partition, CoordinatorRecords.offsetKey(groupId, p.topic(), p.partition()),
                    CoordinatorRecords.offsetValue(offsetValue(p, now))));
        }
        if (records.isEmpty()) return CompletableFuture.completedFuture(results);
        writer.write(group.partition, records).whenComplete((v, e) -> {
            if (e != null) {
                Errors error = commitAppendError(e);
                List<PartitionResult> failed = new ArrayList<>(results.size());
                for (PartitionResult r : results) {
                    failed.add(r.error() == Errors.NONE ? new PartitionResult(r.topic(), r.partition(), error) : r);
                }
                future.complete(failed);
                return;
            }
            ClassicGroup g = groups.getOrCreate(groupId);
            for (CommitPartition p : accepted) g.putOffset(p.topic(), p.partition(), offsetValue(p, now));
            future.complete(results);
        });
        return future;
    }

    /** Null metadata is stored as empty. */
    private static CoordinatorRecords.OffsetValue offsetValue(CommitPartition p, long now) {
        return new CoordinatorRecords.OffsetValue(p.offset(), p.leaderEpoch(), p.metadata() == null ? "" : p.metadata(), now);
    }

    /** Kafka's mapping of a failed offset write to the error the committer sees. */
    static Errors commitAppendError(Throwable e) {
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        if (cause instanceof CoordinatorLogException x) {
            return switch (x.reason()) {
                case RECORDS_TOO_LARGE -> Errors.INVALID_COMMIT_OFFSET_SIZE;
                case NOT_LEADER -> Errors.NOT_COORDINATOR;
                case UNAVAILABLE -> Errors.COORDINATOR_NOT_AVAILABLE;
            };
        }
        return Errors.COORDINATOR_NOT_AVAILABLE;
    }

    private Errors validateCommit(String groupId, int generationId, String memberId, String groupInstanceId, short version,
                                  List<CommitPartition> partitions) {
        // the empty id is a group for commits, as Kafka keeps it for the clients of before KIP-289
        if (groupId == null) return Errors.INVALID_GROUP_ID;
        ClassicGroup group = groups.get(groupId);
        if (group == null) {
            if (generationId < 0) return Errors.NONE; // standalone commit: an Empty "simple" group is created
            return version >= 9 ? Errors.GROUP_ID_NOT_FOUND : Errors.ILLEGAL_GENERATION;
        }
        if (group.is(GroupState.DEAD)) return Errors.COORDINATOR_NOT_AVAILABLE;
        if (group.modern != null) return group.modern.validateCommit(generationId, memberId, version, false, partitions);
        if (generationId < 0 && group.is(GroupState.EMPTY)) return Errors.NONE;
        if (groupInstanceId != null) {
            String current = group.staticMembers.get(groupInstanceId);
            if (current != null && !current.equals(memberId)) return Errors.FENCED_INSTANCE_ID;
        }
        if (memberId == null || !group.hasMember(memberId)) return Errors.UNKNOWN_MEMBER_ID;
        if (generationId != group.generation) return Errors.ILLEGAL_GENERATION;
        if (group.is(GroupState.COMPLETING_REBALANCE)) return Errors.REBALANCE_IN_PROGRESS;
        return Errors.NONE;
    }

    private static List<PartitionResult> allFailed(List<CommitPartition> partitions, Errors error) {
        List<PartitionResult> out = new ArrayList<>(partitions.size());
        for (CommitPartition p : partitions) out.add(new PartitionResult(p.topic(), p.partition(), error));
        return out;
    }

    // ------------------------------------------------------------------ OffsetFetch

    /**
     * Kafka's check of an OffsetFetch (v9+) against a consumer group of KIP-848 when it names a
     * member: UNKNOWN_MEMBER_ID or STALE_MEMBER_EPOCH; NONE for every other group.
     */
    Errors validateFetch(String groupId, String memberId, int memberEpoch) {
        ClassicGroup group = groupId == null ? null : groups.get(groupId);
        return group == null || group.modern == null ? Errors.NONE : group.modern.validateFetch(memberId, memberEpoch);
    }

    /**
     * @param topics topic → partitions, or null for every partition with a committed offset
     */
    FetchResult fetch(String groupId, Map<String, List<Integer>> topics, boolean requireStable) {
        ClassicGroup group = groupId == null ? null : groups.get(groupId);
        List<FetchedPartition> out = new ArrayList<>();
        if (topics == null) {
            if (group != null) {
                group.offsets.forEach((topic, parts) -> parts.forEach((p, v) -> out.add(fetched(group, topic, p, v, requireStable))));
            }
            return new FetchResult(Errors.NONE, out);
        }
        topics.forEach((topic, parts) -> {
            TreeMap<Integer, CoordinatorRecords.OffsetValue> committed = group == null ? null : group.offsets.get(topic);
            for (int p : parts) {
                CoordinatorRecords.OffsetValue v = committed == null ? null : committed.get(p);
                out.add(fetched(group, topic, p, v, requireStable));
            }
        });
        return new FetchResult(Errors.NONE, out);
    }

    private static FetchedPartition fetched(ClassicGroup group, String topic, int partition,
                                            CoordinatorRecords.OffsetValue v, boolean requireStable) {
        if (requireStable && group != null && group.isPendingTransactional(topic, partition)) {
            return new FetchedPartition(topic, partition, -1, -1, "", Errors.UNSTABLE_OFFSET_COMMIT);
        }
        if (v == null) return new FetchedPartition(topic, partition, -1, -1, "", Errors.NONE);
        return new FetchedPartition(topic, partition, v.offset(), v.leaderEpoch(), v.metadata(), Errors.NONE);
    }

    /** Marks a transactional offset commit as in flight or done (for a transaction coordinator; require_stable). */
    void markPendingTransactional(String groupId, String topic, int partition, boolean pending) {
        ClassicGroup group = groups.getOrCreate(groupId);
        if (pending) {
            group.pendingTransactionalOffsets.computeIfAbsent(topic, t -> new HashSet<>()).add(partition);
        } else {
            Set<Integer> s = group.pendingTransactionalOffsets.get(topic);
            if (s != null && s.remove(partition) && s.isEmpty()) group.pendingTransactionalOffsets.remove(topic);
        }
    }

    // ------------------------------------------------------------------ OffsetDelete

    CompletableFuture<OffsetDeleteResult> delete(String groupId, Map<String, List<Integer>> topics) {
        CompletableFuture<OffsetDeleteResult> future = new CompletableFuture<>();
        if (groupId == null || groupId.isEmpty()) return CompletableFuture.completedFuture(new OffsetDeleteResult(Errors.INVALID_GROUP_ID, List.of()));
        ClassicGroup group = groups.get(groupId);
        if (group == null || group.is(GroupState.DEAD)) return CompletableFuture.completedFuture(new OffsetDeleteResult(Errors.GROUP_ID_NOT_FOUND, List.of()));
        Set<String> subscribed = null;
        boolean checkSubscription = false;
        if (group.modern != null && !group.modern.isEmpty()) {
            checkSubscription = true;
            subscribed = group.modern.subscribedTopicNames();
        } else if (!group.is(GroupState.EMPTY)) {
            if (!ConsumerSubscription.CONSUMER_PROTOCOL_TYPE.equals(group.protocolType)) {
                return CompletableFuture.completedFuture(new OffsetDeleteResult(Errors.NON_EMPTY_GROUP, List.of()));
            }
            checkSubscription = true;
            subscribed = group.subscribedTopics();
        }
        List<PartitionResult> results = new ArrayList<>();
        List<CoordinatorRecord> records = new ArrayList<>();
        List<Map.Entry<String, Integer>> toRemove = new ArrayList<>();
        for (Map.Entry<String, List<Integer>> t : topics.entrySet()) {
            // An unreadable subscription counts as subscribed to everything (never delete in use).
            boolean inUse = checkSubscription && (subscribed == null || subscribed.contains(t.getKey()));
            for (int p : t.getValue()) {
                if (inUse) {
                    results.add(new PartitionResult(t.getKey(), p, Errors.GROUP_SUBSCRIBED_TO_TOPIC));
                    continue;
                }
                results.add(new PartitionResult(t.getKey(), p, Errors.NONE));
                TreeMap<Integer, CoordinatorRecords.OffsetValue> parts = group.offsets.get(t.getKey());
                // as Kafka: a pending transactional offset is deleted too (the tombstone drops it)
                if ((parts != null && parts.containsKey(p)) || group.isPendingTransactional(t.getKey(), p)) {
                    records.add(group.offsetTombstone(t.getKey(), p));
                    toRemove.add(Map.entry(t.getKey(), p));
                }
            }
        }
        if (records.isEmpty()) return CompletableFuture.completedFuture(new OffsetDeleteResult(Errors.NONE, results));
        writer.write(group.partition, records).whenComplete((v, e) -> {
            if (e != null) {
                future.complete(new OffsetDeleteResult(Errors.COORDINATOR_NOT_AVAILABLE, List.of()));
                return;
            }
            for (Map.Entry<String, Integer> r : toRemove) group.removeOffset(r.getKey(), r.getValue());
            future.complete(new OffsetDeleteResult(Errors.NONE, results));
        });
        return future;
    }

    // ------------------------------------------------------------------ expiry

    /** Arms the periodic expiry ({@code offsets.retention.check.interval.ms}); it re-arms itself. */
    void scheduleExpiry() {
        loop.schedule("offset-expiry", config.offsetsRetentionCheckIntervalMs(), () -> {
            expire();
            scheduleExpiry();
        });
    }

    private record Expired(String topic, int partition, CoordinatorRecords.OffsetValue value) {
    }

    /**
     * Deletes expired offsets (Kafka's rules): for an Empty group that had members, every offset
     * expires {@code offsets.retention} after the group became Empty; for a simple group (never had
     * members), each offset expires that long after its commit; for a Stable consumer group, offsets
     * of topics nobody subscribes to expire that long after their commit. Empty groups left with no
     * offsets are deleted too. Groups of a partition not (yet) loaded are left alone: their state is
     * partial, and a tombstone written from it could delete an offset the rest of the load sets.
     */
    // an expired offset is removed only if it is still the very value that expired (identity):
    // a commit made meanwhile replaced it with another object
    @SuppressWarnings("ReferenceEquality")
    void expire() {
        long now = loop.now();
        long retention = config.offsetsRetentionMs();
        for (ClassicGroup group : groups.snapshot()) {
            if (group.is(GroupState.DEAD) || !loaded.test(group.partition)) continue;
            Set<String> subscribed = null;
            boolean byStateTime;
            if (group.modern != null) {
                // a consumer group: as a classic one of the consumer protocol, by its subscriptions while it has members
                byStateTime = group.modern.isEmpty();
                if (!byStateTime) subscribed = group.modern.subscribedTopicNames();
            } else if (group.protocolType == null) {
                byStateTime = false;
            } else if (group.is(GroupState.EMPTY)) {
                byStateTime = true;
            } else if (group.is(GroupState.STABLE) && ConsumerSubscription.CONSUMER_PROTOCOL_TYPE.equals(group.protocolType)) {
                subscribed = group.subscribedTopics();
                if (subscribed == null) continue;
                byStateTime = false;
            } else {
                continue;
            }
            List<CoordinatorRecord> records = new ArrayList<>();
            List<Expired> expired = new ArrayList<>();
            for (Map.Entry<String, TreeMap<Integer, CoordinatorRecords.OffsetValue>> t : group.offsets.entrySet()) {
                if (subscribed != null && subscribed.contains(t.getKey())) continue;
                for (Map.Entry<Integer, CoordinatorRecords.OffsetValue> p : t.getValue().entrySet()) {
                    if (group.isPendingTransactional(t.getKey(), p.getKey())) continue;
                    long base = byStateTime ? group.stateTimestamp : p.getValue().commitTimestamp();
                    if (now - base >= retention) {
                        records.add(group.offsetTombstone(t.getKey(), p.getKey()));
                        expired.add(new Expired(t.getKey(), p.getKey(), p.getValue()));
                    }
                }
            }
            boolean dropGroup = group.hasNoMembers() && expired.size() == group.offsetCount()
                    && group.pendingTransactionalOffsets.isEmpty() && group.pendingMembers.isEmpty();
            if (dropGroup) {
                if (group.modern != null) records.addAll(ConsumerGroupHeartbeats.tombstones(group));
                records.add(group.metadataTombstone());
            }
            if (records.isEmpty()) continue;
            writer.write(group.partition, records).whenComplete((v, e) -> {
                if (e != null) return; // retried at the next check
                for (Expired x : expired) {
                    TreeMap<Integer, CoordinatorRecords.OffsetValue> parts = group.offsets.get(x.topic());
                    // Only if nobody committed again in the meantime.
                    if (parts != null && parts.get(x.partition()) == x.value()) group.removeOffset(x.topic(), x.partition());
                }
                if (dropGroup && groups.isCurrent(group) && group.hasNoMembers() && !group.hasOffsets()
                        && group.pendingMembers.isEmpty()) {
                    group.transitionTo(GroupState.DEAD, loop.now());
                    groups.remove(group.groupId);
                }
            });
        }
    }
}
