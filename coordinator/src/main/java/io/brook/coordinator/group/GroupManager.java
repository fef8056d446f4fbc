package io.brook.coordinator.group;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import io.brook.wire.protocol.Errors;

/**
 * The classic-protocol group state machine and the committed offsets of every group: the logic of
 * the group coordinator, without threads or wire messages.
 *
 * <p><b>Threading.</b> Not thread-safe: every method, every timer and every continuation of a log
 * append runs on the {@link EventLoop} owner thread. Futures returned here complete on that thread.
 *
 * <p><b>States</b> (Kafka's classic group protocol):
 * <pre>
 *                 member joins                      all members rejoined, or rebalance timeout
 *   +-------+  (after MEMBER_ID_REQUIRED)  +--------------------+  (initial delay first when from Empty)  +---------------------+
 *   | Empty | ---------------------------> | PreparingRebalance | --------------------------------------> | CompletingRebalance |
 *   +-------+                              +--------------------+                                         +---------------------+
 *       ^   join phase ends with no members   |     ^      ^                                                |            |
 *       +-------------------------------------+     |      | member joins with new metadata, leaves,        |            | leader's
 *                                                   |      | expires, or misses SyncGroup;                   |            | SyncGroup
 *                                                   |      +-------------------------------------------------+            | durable
 *                                                   |   leader rejoins, follower rejoins with new metadata,               v
 *                                                   |   new member, leave, session expiry, pending-sync expiry   +--------+
 *                                                   +--------------------------------------------------------------| Stable |
 *                                                                                                                  +--------+
 *   Dead: reached from any state when the group is deleted (DeleteGroups, or an Empty group whose
 *   last offsets expired); it is then dropped from memory.
 * </pre>
 *
 * <p><b>Durability.</b> Offset commits, the leader's assignment (SyncGroup), static-member
 * replacement, group deletion and offset deletion are answered only after their records are
 * durable in the {@link CoordinatorLog}; in-memory state changes with the answer (offsets) or is
 * reverted if the write fails (assignments, replacements). Group metadata is also written, without
 * anyone waiting, when a join phase ends with an Empty group.
 */
final class GroupManager {

    static final String GROUP_TYPE_CLASSIC = "classic";

    // ------------------------------------------------------------------ request/result values

    record JoinRequest(String groupId, String memberId, String groupInstanceId, String protocolType,
                       List<Protocol> protocols, int sessionTimeoutMs, int rebalanceTimeoutMs,
                       String clientId, String clientHost, short version) {
    }

    record JoinedMember(String memberId, String groupInstanceId, byte[] metadata) {
    }

    record JoinResult(Errors error, int generationId, String protocolType, String protocolName,
                      String leader, boolean skipAssignment, String memberId, List<JoinedMember> members) {
        static JoinResult error(Errors e, String memberId) {
            return new JoinResult(e, -1, null, null, "", false, memberId, List.of());
        }
    }

    record SyncRequest(String groupId, int generationId, String memberId, String groupInstanceId,
                       String protocolType, String protocolName, Map<String, byte[]> assignments, short version) {
    }

    record SyncResult(Errors error, String protocolType, String protocolName, byte[] assignment) {
        static SyncResult error(Errors e) {
            return new SyncResult(e, null, null, GroupMember.EMPTY_BYTES);
        }
    }

    record LeavingMember(String memberId, String groupInstanceId) {
    }

    record MemberLeaveResult(String memberId, String groupInstanceId, Errors error) {
    }

    record LeaveResult(Errors error, List<MemberLeaveResult> members) {
    }

    record CommitPartition(String topic, int partition, long offset, int leaderEpoch, String metadata) {
    }

    record PartitionResult(String topic, int partition, Errors error) {
    }

    record FetchedPartition(String topic, int partition, long offset, int leaderEpoch, String metadata, Errors error) {
    }

    record FetchResult(Errors error, List<FetchedPartition> partitions) {
    }

    record DescribedMember(String memberId, String groupInstanceId, String clientId, String clientHost,
                           byte[] metadata, byte[] assignment) {
    }

    record DescribedGroup(Errors error, String errorMessage, String groupId, String state, String protocolType,
                          String protocolData, List<DescribedMember> members) {
    }

    record ListedGroup(String groupId, String protocolType, String state, String type) {
    }

    record OffsetDeleteResult(Errors error, List<PartitionResult> partitions) {
    }

    // ------------------------------------------------------------------ state

    private final GroupCoordinatorConfig config;
    private final EventLoop loop;
    private final CoordinatorLog log;
    private final Map<String, ClassicGroup> groups = new HashMap<>();
    private int replaySkipped;

    GroupManager(GroupCoordinatorConfig config, EventLoop loop, CoordinatorLog log) {
        this.config = config;
        this.loop = loop;
        this.log = log;
    }

    ClassicGroup group(String groupId) {
        return groups.get(groupId);
    }

    int replaySkipped() {
        return replaySkipped;
    }

    private long now() {
        return loop.now();
    }

    private ClassicGroup getOrCreate(String groupId) {
        return groups.computeIfAbsent(groupId, g -> new ClassicGroup(g, config.partitionFor(g), now()));
    }

    private static String heartbeatKey(ClassicGroup g, String memberId) {
        return "heartbeat\u0000" + g.groupId + "\u0000" + memberId;
    }

    private static String joinKey(ClassicGroup g) {
        return "join\u0000" + g.groupId;
    }

    private static String syncKey(ClassicGroup g) {
        return "sync\u0000" + g.groupId;
    }

    // ------------------------------------------------------------------ JoinGroup

    CompletableFuture<JoinResult> join(JoinRequest req) {
        CompletableFuture<JoinResult> future = new CompletableFuture<>();
        String memberId = req.memberId() == null ? "" : req.memberId();
        if (req.groupId() == null || req.groupId().isEmpty()) {
            return done(future, JoinResult.error(Errors.INVALID_GROUP_ID, memberId));
        }
        if (req.sessionTimeoutMs() < config.minSessionTimeoutMs() || req.sessionTimeoutMs() > config.maxSessionTimeoutMs()) {
            return done(future, JoinResult.error(Errors.INVALID_SESSION_TIMEOUT, memberId));
        }
        boolean unknownMember = memberId.isEmpty();
        ClassicGroup group = groups.get(req.groupId());
        if (group == null) {
            if (!unknownMember) return done(future, JoinResult.error(Errors.UNKNOWN_MEMBER_ID, memberId));
            group = getOrCreate(req.groupId());
        }
        if (!acceptJoiningMember(group, memberId)) {
            if (group.pendingMembers.remove(memberId)) {
                loop.cancel(heartbeatKey(group, memberId));
                maybeCompleteJoin(group);
            } else if (group.hasMember(memberId)) {
                removeMember(group, memberId);
                afterMembershipShrank(group);
            }
            return done(future, JoinResult.error(Errors.GROUP_MAX_SIZE_REACHED, ""));
        }
        if (group.is(GroupState.DEAD)) {
            return done(future, JoinResult.error(Errors.COORDINATOR_NOT_AVAILABLE, memberId));
        }
        if (!group.supportsProtocols(req.protocolType(), req.protocols())) {
            return done(future, JoinResult.error(Errors.INCONSISTENT_GROUP_PROTOCOL, memberId));
        }
        if (unknownMember) {
            joinUnknownMember(group, req, future);
        } else {
            joinKnownMember(group, req, memberId, future);
        }
        return future;
    }

    private void joinUnknownMember(ClassicGroup group, JoinRequest req, CompletableFuture<JoinResult> future) {
        String instanceId = req.groupInstanceId();
        if (instanceId != null && group.staticMembers.containsKey(instanceId)) {
            replaceStaticMember(group, req, future);
            return;
        }
        if (instanceId != null) {
            addMemberAndRebalance(group, req, instanceId + "-" + UUID.randomUUID(), future);
        } else if (req.version() >= 4) {
            // KIP-394: hand out the id first, so that a client that times out and retries does not
            // leave a ghost member behind; the id expires after the session timeout if unused.
            String newId = req.clientId() + "-" + UUID.randomUUID();
            group.pendingMembers.add(newId);
            loop.schedule(heartbeatKey(group, newId), req.sessionTimeoutMs(), () -> onHeartbeatExpired(group.groupId, newId));
            future.complete(JoinResult.error(Errors.MEMBER_ID_REQUIRED, newId));
        } else {
            addMemberAndRebalance(group, req, req.clientId() + "-" + UUID.randomUUID(), future);
        }
    }

    /**
     * {@code group.max.size}: while preparing a rebalance, members already parked in JoinGroup are
     * kept and others fill up to the limit (so that, if the limit was lowered, the last to rejoin
     * are the ones turned away); otherwise known members are kept and new ones fill up to it.
     */
    private boolean acceptJoiningMember(ClassicGroup group, String memberId) {
        return switch (group.state) {
            case EMPTY, DEAD -> true;
            case PREPARING_REBALANCE -> {
                GroupMember m = group.members.get(memberId);
                yield (m != null && m.awaitingJoin != null) || group.numAwaitingJoin() < config.maxGroupSize();
            }
            default -> group.hasMember(memberId) || group.members.size() < config.maxGroupSize();
        };
    }

    private void joinKnownMember(ClassicGroup group, JoinRequest req, String memberId, CompletableFuture<JoinResult> future) {
        if (group.pendingMembers.contains(memberId)) {
            if (req.groupInstanceId() != null) {
                future.complete(JoinResult.error(Errors.FENCED_INSTANCE_ID, memberId));
                return;
            }
            addMemberAndRebalance(group, req, memberId, future);
            return;
        }
        Errors invalid = validateMember(group, memberId, req.groupInstanceId());
        if (invalid != Errors.NONE) {
            future.complete(JoinResult.error(invalid, memberId));
            return;
        }
        GroupMember member = group.members.get(memberId);
        switch (group.state) {
            case PREPARING_REBALANCE -> updateMemberAndRebalance(group, member, req, future);
            case COMPLETING_REBALANCE -> {
                if (member.matches(req.protocols())) {
                    // The member missed our JoinGroup response; give it the same answer again.
                    future.complete(currentJoinResult(group, member, false));
                } else {
                    updateMemberAndRebalance(group, member, req, future);
                }
            }
            case STABLE -> {
                if (group.isLeader(memberId) || !member.matches(req.protocols())) {
                    // The leader rejoining means it wants a new assignment (e.g. metadata changed).
                    updateMemberAndRebalance(group, member, req, future);
                } else {
                    future.complete(currentJoinResult(group, member, false));
                }
            }
            default -> future.complete(JoinResult.error(Errors.UNKNOWN_MEMBER_ID, memberId));
        }
    }

    /** The members list goes to the leader only; followers get an empty list. */
    private JoinResult currentJoinResult(ClassicGroup group, GroupMember member, boolean skipAssignment) {
        List<JoinedMember> list = group.isLeader(member.memberId) ? memberList(group) : List.of();
        return new JoinResult(Errors.NONE, group.generation, group.protocolType, group.protocolName,
                group.leaderId, skipAssignment, member.memberId, list);
    }

    private static List<JoinedMember> memberList(ClassicGroup group) {
        List<JoinedMember> list = new ArrayList<>(group.members.size());
        for (GroupMember m : group.members.values()) {
            list.add(new JoinedMember(m.memberId, m.instanceId, m.metadataFor(group.protocolName)));
        }
        return list;
    }

    private void addMemberAndRebalance(ClassicGroup group, JoinRequest req, String memberId, CompletableFuture<JoinResult> future) {
        if (group.members.isEmpty()) group.protocolType = req.protocolType();
        GroupMember member = new GroupMember(memberId, req.groupInstanceId(), req.clientId(), req.clientHost(),
                req.rebalanceTimeoutMs(), req.sessionTimeoutMs(), req.protocols());
        member.isNew = true;
        member.awaitingJoin = future;
        if (group.initialDelayActive) group.newMemberAdded = true; // extends the initial delay
        group.pendingMembers.remove(memberId);
        group.add(member);
        scheduleHeartbeat(group, member, config.newMemberJoinTimeoutMs());
        maybePrepareRebalance(group);
        maybeCompleteJoin(group);
    }

    private void updateMemberAndRebalance(ClassicGroup group, GroupMember member, JoinRequest req, CompletableFuture<JoinResult> future) {
        member.protocols = req.protocols();
        member.rebalanceTimeoutMs = req.rebalanceTimeoutMs();
        member.sessionTimeoutMs = req.sessionTimeoutMs();
        member.clientId = req.clientId();
        member.clientHost = req.clientHost();
        if (member.awaitingJoin != null && member.awaitingJoin != future) {
            // A retried JoinGroup supersedes the parked one.
            member.awaitingJoin.complete(JoinResult.error(Errors.UNKNOWN_MEMBER_ID, member.memberId));
        }
        member.awaitingJoin = future;
        scheduleHeartbeat(group, member, member.sessionTimeoutMs);
        maybePrepareRebalance(group);
        maybeCompleteJoin(group);
    }

    /** A static member came back with an empty member id: the new incarnation takes over the old id's place. */
    private void replaceStaticMember(ClassicGroup group, JoinRequest req, CompletableFuture<JoinResult> future) {
        String oldId = group.staticMembers.get(req.groupInstanceId());
        String newId = req.groupInstanceId() + "-" + UUID.randomUUID();
        GroupMember member = group.members.get(oldId);
        // The old incarnation's parked calls are answered as fenced.
        if (member.awaitingJoin != null) {
            member.awaitingJoin.complete(JoinResult.error(Errors.FENCED_INSTANCE_ID, oldId));
            member.awaitingJoin = null;
        }
        if (member.awaitingSync != null) {
            member.awaitingSync.complete(SyncResult.error(Errors.FENCED_INSTANCE_ID));
            member.awaitingSync = null;
        }
        List<Protocol> oldProtocols = member.protocols;
        int oldRebalance = member.rebalanceTimeoutMs;
        int oldSession = member.sessionTimeoutMs;
        String oldClientId = member.clientId;
        String oldHost = member.clientHost;
        loop.cancel(heartbeatKey(group, oldId));
        group.replaceStaticMember(oldId, newId);
        member.protocols = req.protocols();
        member.rebalanceTimeoutMs = req.rebalanceTimeoutMs();
        member.sessionTimeoutMs = req.sessionTimeoutMs();
        member.clientId = req.clientId();
        member.clientHost = req.clientHost();
        scheduleHeartbeat(group, member, member.sessionTimeoutMs);

        switch (group.state) {
            case STABLE -> {
                String next = group.selectProtocol();
                if (next != null && next.equals(group.protocolName)) {
                    // KIP-345: no rebalance; persist the new member id, then hand back the current
                    // generation. From v9 the leader gets the member list but must not reassign
                    // (KIP-814); older leaders get no list (they would reassign otherwise).
                    int generation = group.generation;
                    append(group.partition, List.of(groupRecord(group, null))).whenComplete((v, e) -> {
                        if (e == null) {
                            if (req.version() >= 9) {
                                future.complete(currentJoinResult(group, member, group.isLeader(newId)));
                            } else {
                                future.complete(new JoinResult(Errors.NONE, group.generation, group.protocolType,
                                        group.protocolName, group.leaderId, false, newId, List.of()));
                            }
                            return;
                        }
                        if (group.members.get(newId) == member && group.generation == generation) {
                            loop.cancel(heartbeatKey(group, newId));
                            group.replaceStaticMember(newId, oldId);
                            member.protocols = oldProtocols;
                            member.rebalanceTimeoutMs = oldRebalance;
                            member.sessionTimeoutMs = oldSession;
                            member.clientId = oldClientId;
                            member.clientHost = oldHost;
                            scheduleHeartbeat(group, member, member.sessionTimeoutMs);
                        }
                        future.complete(JoinResult.error(Errors.COORDINATOR_NOT_AVAILABLE, ""));
                    });
                } else {
                    member.awaitingJoin = future;
                    prepareRebalance(group);
                    maybeCompleteJoin(group);
                }
            }
            case COMPLETING_REBALANCE -> {
                member.awaitingJoin = future;
                prepareRebalance(group);
                maybeCompleteJoin(group);
            }
            case PREPARING_REBALANCE -> {
                member.awaitingJoin = future;
                maybeCompleteJoin(group);
            }
            default -> future.complete(JoinResult.error(Errors.UNKNOWN_MEMBER_ID, newId));
        }
    }

    private void maybePrepareRebalance(ClassicGroup group) {
        if (group.is(GroupState.STABLE) || group.is(GroupState.COMPLETING_REBALANCE) || group.is(GroupState.EMPTY)) {
            prepareRebalance(group);
        }
    }

    private void prepareRebalance(ClassicGroup group) {
        if (group.is(GroupState.COMPLETING_REBALANCE)) {
            resetAndPropagateAssignmentError(group, Errors.REBALANCE_IN_PROGRESS);
        }
        loop.cancel(syncKey(group));
        group.pendingSyncMembers.clear();
        boolean initial = group.is(GroupState.EMPTY);
        group.transitionTo(GroupState.PREPARING_REBALANCE, now());
        // The first rebalance out of Empty always completes by its timer (even with no delay, then
        // on the next turn of the loop), so members that arrive together land in one generation.
        if (initial) {
            int delay = config.initialRebalanceDelayMs();
            int remaining = Math.max(group.rebalanceTimeoutMs() - delay, 0);
            group.initialDelayActive = true;
            group.newMemberAdded = false;
            loop.schedule(joinKey(group), delay, () -> onInitialDelayExpired(group, remaining));
        } else {
            group.initialDelayActive = false;
            loop.schedule(joinKey(group), group.rebalanceTimeoutMs(), () -> completeJoin(group));
        }
    }

    private void onInitialDelayExpired(ClassicGroup group, int remaining) {
        if (groups.get(group.groupId) != group || !group.is(GroupState.PREPARING_REBALANCE)) return;
        if (group.newMemberAdded && remaining > 0) {
            group.newMemberAdded = false;
            int delay = Math.min(config.initialRebalanceDelayMs(), remaining);
            loop.schedule(joinKey(group), delay, () -> onInitialDelayExpired(group, remaining - delay));
        } else {
            completeJoin(group);
        }
    }

    private void maybeCompleteJoin(ClassicGroup group) {
        if (group.is(GroupState.PREPARING_REBALANCE) && !group.initialDelayActive && group.allMembersJoined()) {
            completeJoin(group);
        }
    }

    /** End of the join phase: drop members that did not rejoin, start the next generation, answer the joins. */
    private void completeJoin(ClassicGroup group) {
        loop.cancel(joinKey(group));
        group.initialDelayActive = false;
        if (groups.get(group.groupId) != group || !group.is(GroupState.PREPARING_REBALANCE)) return;
        // Dynamic members that did not rejoin in time are removed; static members are kept (KIP-345).
        for (GroupMember m : new ArrayList<>(group.members.values())) {
            if (m.awaitingJoin == null && !m.isStatic()) {
                loop.cancel(heartbeatKey(group, m.memberId));
                group.remove(m.memberId);
            }
        }
        if (!group.members.isEmpty() && !electJoinedLeader(group)) {
            // Only static members are left and none rejoined: wait for another rebalance timeout.
            loop.schedule(joinKey(group), group.rebalanceTimeoutMs(), () -> completeJoin(group));
            return;
        }
        group.generation++;
        if (group.members.isEmpty()) {
            group.protocolName = null;
            group.transitionTo(GroupState.EMPTY, now());
            append(group.partition, List.of(groupRecord(group, null)));
            return;
        }
        group.protocolName = group.selectProtocol();
        group.transitionTo(GroupState.COMPLETING_REBALANCE, now());
        for (GroupMember m : group.members.values()) {
            m.assignment = GroupMember.EMPTY_BYTES;
            group.pendingSyncMembers.add(m.memberId);
            if (m.awaitingJoin != null) {
                CompletableFuture<JoinResult> f = m.awaitingJoin;
                m.awaitingJoin = null;
                m.isNew = false;
                scheduleHeartbeat(group, m, m.sessionTimeoutMs);
                f.complete(currentJoinResult(group, m, false));
            }
        }
        int generation = group.generation;
        loop.schedule(syncKey(group), group.rebalanceTimeoutMs(), () -> onPendingSyncExpired(group, generation));
    }

    /** Makes sure the leader is a member that rejoined; false when no member rejoined. */
    private static boolean electJoinedLeader(ClassicGroup group) {
        GroupMember leader = group.leaderId == null ? null : group.members.get(group.leaderId);
        if (leader != null && leader.awaitingJoin != null) return true;
        for (GroupMember m : group.members.values()) {
            if (m.awaitingJoin != null) {
                group.leaderId = m.memberId;
                return true;
            }
        }
        return false;
    }

    private void onPendingSyncExpired(ClassicGroup group, int generation) {
        if (groups.get(group.groupId) != group || group.generation != generation) return;
        if (!(group.is(GroupState.COMPLETING_REBALANCE) || group.is(GroupState.STABLE))) return;
        if (group.pendingSyncMembers.isEmpty()) return;
        for (String id : new ArrayList<>(group.pendingSyncMembers)) {
            removeMember(group, id);
        }
        prepareRebalance(group);
        maybeCompleteJoin(group);
    }

    private void resetAndPropagateAssignmentError(ClassicGroup group, Errors error) {
        for (GroupMember m : group.members.values()) m.assignment = GroupMember.EMPTY_BYTES;
        propagateAssignment(group, error);
    }

    private void propagateAssignment(ClassicGroup group, Errors error) {
        for (GroupMember m : group.members.values()) {
            if (m.awaitingSync != null) {
                CompletableFuture<SyncResult> f = m.awaitingSync;
                m.awaitingSync = null;
                scheduleHeartbeat(group, m, m.sessionTimeoutMs);
                f.complete(error == Errors.NONE
                        ? new SyncResult(Errors.NONE, group.protocolType, group.protocolName, m.assignment)
                        : SyncResult.error(error));
            }
        }
    }

    // ------------------------------------------------------------------ SyncGroup

    CompletableFuture<SyncResult> sync(SyncRequest req) {
        CompletableFuture<SyncResult> future = new CompletableFuture<>();
        ClassicGroup group = req.groupId() == null ? null : groups.get(req.groupId());
        if (req.groupId() == null || req.groupId().isEmpty()) return done(future, SyncResult.error(Errors.INVALID_GROUP_ID));
        if (group == null) return done(future, SyncResult.error(Errors.UNKNOWN_MEMBER_ID));
        if (group.is(GroupState.DEAD)) return done(future, SyncResult.error(Errors.COORDINATOR_NOT_AVAILABLE));
        Errors invalid = validateMember(group, req.memberId(), req.groupInstanceId());
        if (invalid != Errors.NONE) return done(future, SyncResult.error(invalid));
        if (req.generationId() != group.generation) return done(future, SyncResult.error(Errors.ILLEGAL_GENERATION));
        if (req.version() >= 5) {
            if ((req.protocolType() != null && !req.protocolType().equals(group.protocolType))
                    || (req.protocolName() != null && !req.protocolName().equals(group.protocolName))) {
                return done(future, SyncResult.error(Errors.INCONSISTENT_GROUP_PROTOCOL));
            }
        }
        GroupMember member = group.members.get(req.memberId());
        switch (group.state) {
            case PREPARING_REBALANCE -> future.complete(SyncResult.error(Errors.REBALANCE_IN_PROGRESS));
            case COMPLETING_REBALANCE -> {
                if (member.awaitingSync != null && member.awaitingSync != future) {
                    member.awaitingSync.complete(SyncResult.error(Errors.UNKNOWN_MEMBER_ID));
                }
                member.awaitingSync = future;
                group.pendingSyncMembers.remove(member.memberId);
                scheduleHeartbeat(group, member, member.sessionTimeoutMs);
                if (group.isLeader(member.memberId)) completeSync(group, req.assignments());
            }
            case STABLE -> {
                group.pendingSyncMembers.remove(member.memberId);
                scheduleHeartbeat(group, member, member.sessionTimeoutMs);
                future.complete(new SyncResult(Errors.NONE, group.protocolType, group.protocolName, member.assignment));
            }
            default -> future.complete(SyncResult.error(Errors.UNKNOWN_MEMBER_ID));
        }
        return future;
    }

    /** The leader's assignment: make it durable, then move to Stable and answer every parked SyncGroup. */
    private void completeSync(ClassicGroup group, Map<String, byte[]> given) {
        Map<String, byte[]> assignments = new HashMap<>();
        for (String id : group.members.keySet()) {
            byte[] a = given == null ? null : given.get(id);
            assignments.put(id, a == null ? GroupMember.EMPTY_BYTES : a);
        }
        int generation = group.generation;
        append(group.partition, List.of(groupRecord(group, assignments))).whenComplete((v, e) -> {
            if (groups.get(group.groupId) != group || group.generation != generation
                    || !group.is(GroupState.COMPLETING_REBALANCE)) {
                return;
            }
            if (e != null) {
                resetAndPropagateAssignmentError(group, Errors.COORDINATOR_NOT_AVAILABLE);
                prepareRebalance(group);
                maybeCompleteJoin(group);
                return;
            }
            for (GroupMember m : group.members.values()) m.assignment = assignments.getOrDefault(m.memberId, GroupMember.EMPTY_BYTES);
            group.transitionTo(GroupState.STABLE, now());
            propagateAssignment(group, Errors.NONE);
        });
    }

    // ------------------------------------------------------------------ Heartbeat

    Errors heartbeat(String groupId, int generationId, String memberId, String groupInstanceId) {
        if (groupId == null || groupId.isEmpty()) return Errors.INVALID_GROUP_ID;
        ClassicGroup group = groups.get(groupId);
        if (group == null) return Errors.UNKNOWN_MEMBER_ID;
        if (group.is(GroupState.DEAD)) return Errors.COORDINATOR_NOT_AVAILABLE;
        Errors invalid = validateMember(group, memberId, groupInstanceId);
        if (invalid != Errors.NONE) return invalid;
        if (group.is(GroupState.EMPTY)) return Errors.UNKNOWN_MEMBER_ID;
        if (generationId != group.generation) return Errors.ILLEGAL_GENERATION;
        GroupMember member = group.members.get(memberId);
        scheduleHeartbeat(group, member, member.sessionTimeoutMs);
        return group.is(GroupState.PREPARING_REBALANCE) ? Errors.REBALANCE_IN_PROGRESS : Errors.NONE;
    }

    // ------------------------------------------------------------------ LeaveGroup

    LeaveResult leave(String groupId, List<LeavingMember> leaving) {
        List<MemberLeaveResult> results = new ArrayList<>(leaving.size());
        ClassicGroup group = groupId == null ? null : groups.get(groupId);
        if (groupId == null || groupId.isEmpty()) return new LeaveResult(Errors.INVALID_GROUP_ID, List.of());
        if (group == null) return new LeaveResult(Errors.UNKNOWN_MEMBER_ID, List.of());
        if (group.is(GroupState.DEAD)) return new LeaveResult(Errors.COORDINATOR_NOT_AVAILABLE, List.of());
        boolean removed = false;
        for (LeavingMember l : leaving) {
            String memberId = l.memberId() == null ? "" : l.memberId();
            Errors error;
            if (l.groupInstanceId() != null) {
                String current = group.staticMembers.get(l.groupInstanceId());
                if (current == null) {
                    error = Errors.UNKNOWN_MEMBER_ID;
                } else if (!memberId.isEmpty() && !memberId.equals(current)) {
                    error = Errors.FENCED_INSTANCE_ID;
                } else {
                    removeMember(group, current);
                    removed = true;
                    error = Errors.NONE;
                }
            } else if (group.pendingMembers.remove(memberId)) {
                loop.cancel(heartbeatKey(group, memberId));
                removed = true;
                error = Errors.NONE;
            } else if (!group.hasMember(memberId)) {
                error = Errors.UNKNOWN_MEMBER_ID;
            } else {
                removeMember(group, memberId);
                removed = true;
                error = Errors.NONE;
            }
            results.add(new MemberLeaveResult(memberId, l.groupInstanceId(), error));
        }
        if (removed) afterMembershipShrank(group);
        return new LeaveResult(Errors.NONE, results);
    }

    private void removeMember(ClassicGroup group, String memberId) {
        GroupMember m = group.members.get(memberId);
        if (m == null) return;
        loop.cancel(heartbeatKey(group, memberId));
        if (m.awaitingJoin != null) {
            CompletableFuture<JoinResult> f = m.awaitingJoin;
            m.awaitingJoin = null;
            f.complete(JoinResult.error(Errors.UNKNOWN_MEMBER_ID, memberId));
        }
        if (m.awaitingSync != null) {
            CompletableFuture<SyncResult> f = m.awaitingSync;
            m.awaitingSync = null;
            f.complete(SyncResult.error(Errors.UNKNOWN_MEMBER_ID));
        }
        group.remove(memberId);
    }

    private void afterMembershipShrank(ClassicGroup group) {
        switch (group.state) {
            case STABLE, COMPLETING_REBALANCE -> {
                prepareRebalance(group);
                maybeCompleteJoin(group);
            }
            case PREPARING_REBALANCE -> maybeCompleteJoin(group);
            default -> {
            }
        }
    }

    // ------------------------------------------------------------------ session timeouts

    private void scheduleHeartbeat(ClassicGroup group, GroupMember member, int timeoutMs) {
        String id = member.memberId;
        loop.schedule(heartbeatKey(group, id), timeoutMs, () -> onHeartbeatExpired(group.groupId, id));
    }

    private void onHeartbeatExpired(String groupId, String memberId) {
        ClassicGroup group = groups.get(groupId);
        if (group == null) return;
        if (group.pendingMembers.remove(memberId)) {
            maybeCompleteJoin(group);
            return;
        }
        GroupMember member = group.members.get(memberId);
        if (member == null) return;
        // A member parked in JoinGroup (known) or SyncGroup is kept alive: the rebalance and
        // pending-sync timeouts bound how long it can stay there.
        if ((member.awaitingJoin != null && !member.isNew) || member.awaitingSync != null) {
            scheduleHeartbeat(group, member, member.sessionTimeoutMs);
            return;
        }
        removeMember(group, memberId);
        afterMembershipShrank(group);
    }

    private static Errors validateMember(ClassicGroup group, String memberId, String groupInstanceId) {
        if (groupInstanceId != null) {
            String current = group.staticMembers.get(groupInstanceId);
            if (current == null) return Errors.UNKNOWN_MEMBER_ID;
            if (!current.equals(memberId)) return Errors.FENCED_INSTANCE_ID;
            return Errors.NONE;
        }
        return group.hasMember(memberId) ? Errors.NONE : Errors.UNKNOWN_MEMBER_ID;
    }

    // ------------------------------------------------------------------ OffsetCommit

    CompletableFuture<List<PartitionResult>> commitOffsets(String groupId, int generationId, String memberId,
                                                           String groupInstanceId, List<CommitPartition> partitions,
                                                           short version) {
        CompletableFuture<List<PartitionResult>> future = new CompletableFuture<>();
        Errors groupError = validateCommit(groupId, generationId, memberId, groupInstanceId, version);
        if (groupError != Errors.NONE) return done(future, allFailed(partitions, groupError));
        ClassicGroup group = getOrCreate(groupId);
        if (generationId >= 0) {
            GroupMember m = group.members.get(memberId);
            if (m != null) scheduleHeartbeat(group, m, m.sessionTimeoutMs);
        }
        long now = now();
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
            CoordinatorRecords.OffsetValue v = new CoordinatorRecords.OffsetValue(p.offset(), p.leaderEpoch(),
                    p.metadata() == null ? "" : p.metadata(), now);
            records.add(new CoordinatorRecord(group.partition, CoordinatorRecords.offsetKey(groupId, p.topic(), p.partition()),
                    CoordinatorRecords.offsetValue(v)));
        }
        if (records.isEmpty()) return done(future, results);
        append(group.partition, records).whenComplete((v, e) -> {
            if (e != null) {
                Errors error = commitAppendError(e);
                List<PartitionResult> failed = new ArrayList<>(results.size());
                for (PartitionResult r : results) {
                    failed.add(r.error() == Errors.NONE ? new PartitionResult(r.topic(), r.partition(), error) : r);
                }
                future.complete(failed);
                return;
            }
            ClassicGroup g = getOrCreate(groupId);
            for (CommitPartition p : accepted) {
                g.offsets.computeIfAbsent(p.topic(), t -> new TreeMap<>()).put(p.partition(),
                        new CoordinatorRecords.OffsetValue(p.offset(), p.leaderEpoch(), p.metadata() == null ? "" : p.metadata(), now));
            }
            future.complete(results);
        });
        return future;
    }

    /** Kafka's mapping of a failed offset write to the error the committer sees. */
    static Errors commitAppendError(Throwable e) {
        Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
        if (cause instanceof StorageCoordinatorLog.CoordinatorLogException x) {
            return switch (x.error()) {
                case MESSAGE_TOO_LARGE, RECORD_LIST_TOO_LARGE, INVALID_FETCH_SIZE -> Errors.INVALID_COMMIT_OFFSET_SIZE;
                case NOT_LEADER_OR_FOLLOWER -> Errors.NOT_COORDINATOR;
                default -> Errors.COORDINATOR_NOT_AVAILABLE;
            };
        }
        return Errors.COORDINATOR_NOT_AVAILABLE;
    }

    private Errors validateCommit(String groupId, int generationId, String memberId, String groupInstanceId, short version) {
        if (groupId == null || groupId.isEmpty()) return Errors.INVALID_GROUP_ID;
        ClassicGroup group = groups.get(groupId);
        if (group == null) {
            if (generationId < 0) return Errors.NONE; // standalone commit: an Empty "simple" group is created
            return version >= 9 ? Errors.GROUP_ID_NOT_FOUND : Errors.ILLEGAL_GENERATION;
        }
        if (group.is(GroupState.DEAD)) return Errors.COORDINATOR_NOT_AVAILABLE;
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
     * @param topics topic → partitions, or null for every partition with a committed offset
     */
    FetchResult fetchOffsets(String groupId, Map<String, List<Integer>> topics, boolean requireStable) {
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

    /** Marks a transactional offset commit as in flight (for the transaction coordinator; require_stable). */
    void markPendingTransactionalOffset(String groupId, String topic, int partition, boolean pending) {
        ClassicGroup group = getOrCreate(groupId);
        if (pending) {
            group.pendingTransactionalOffsets.computeIfAbsent(topic, t -> new java.util.HashSet<>()).add(partition);
        } else {
            Set<Integer> s = group.pendingTransactionalOffsets.get(topic);
            if (s != null && s.remove(partition) && s.isEmpty()) group.pendingTransactionalOffsets.remove(topic);
        }
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

    /** Filters are case-insensitive; an empty or null filter matches everything. */
    List<ListedGroup> list(List<String> statesFilter, List<String> typesFilter) {
        List<ListedGroup> out = new ArrayList<>();
        for (ClassicGroup g : groups.values()) {
            if (g.is(GroupState.DEAD)) continue;
            if (statesFilter != null && !statesFilter.isEmpty()
                    && statesFilter.stream().noneMatch(s -> s.equalsIgnoreCase(g.state.label()))) {
                continue;
            }
            if (typesFilter != null && !typesFilter.isEmpty()
                    && typesFilter.stream().noneMatch(t -> t.equalsIgnoreCase(GROUP_TYPE_CLASSIC))) {
                continue;
            }
            out.add(new ListedGroup(g.groupId, g.protocolType == null ? "" : g.protocolType, g.state.label(), GROUP_TYPE_CLASSIC));
        }
        out.sort((a, b) -> a.groupId().compareTo(b.groupId()));
        return out;
    }

    // ------------------------------------------------------------------ DeleteGroups / OffsetDelete

    /** @return per group, in request order, the error once the deletion is durable */
    CompletableFuture<List<Map.Entry<String, Errors>>> deleteGroups(List<String> groupIds) {
        List<CompletableFuture<Map.Entry<String, Errors>>> each = new ArrayList<>(groupIds.size());
        for (String id : groupIds) each.add(deleteGroup(id));
        return CompletableFuture.allOf(each.toArray(CompletableFuture[]::new)).thenApply(v -> {
            List<Map.Entry<String, Errors>> out = new ArrayList<>(each.size());
            for (CompletableFuture<Map.Entry<String, Errors>> f : each) out.add(f.join());
            return out;
        });
    }

    private CompletableFuture<Map.Entry<String, Errors>> deleteGroup(String id) {
        if (id == null || id.isEmpty()) return CompletableFuture.completedFuture(Map.entry(String.valueOf(id), Errors.INVALID_GROUP_ID));
        ClassicGroup group = groups.get(id);
        if (group == null || group.is(GroupState.DEAD)) return CompletableFuture.completedFuture(Map.entry(id, Errors.GROUP_ID_NOT_FOUND));
        if (!group.is(GroupState.EMPTY)) return CompletableFuture.completedFuture(Map.entry(id, Errors.NON_EMPTY_GROUP));
        List<CoordinatorRecord> records = new ArrayList<>();
        group.offsets.forEach((topic, parts) -> parts.keySet().forEach(p ->
                records.add(new CoordinatorRecord(group.partition, CoordinatorRecords.offsetKey(id, topic, p), null))));
        records.add(new CoordinatorRecord(group.partition, CoordinatorRecords.groupKey(id), null));
        group.transitionTo(GroupState.DEAD, now());
        return append(group.partition, records).handle((v, e) -> {
            if (e != null) {
                group.state = GroupState.EMPTY; // nothing was written: the group is back as it was
                return Map.entry(id, Errors.COORDINATOR_NOT_AVAILABLE);
            }
            if (groups.get(id) == group) groups.remove(id);
            return Map.entry(id, Errors.NONE);
        });
    }

    CompletableFuture<OffsetDeleteResult> deleteOffsets(String groupId, Map<String, List<Integer>> topics) {
        CompletableFuture<OffsetDeleteResult> future = new CompletableFuture<>();
        if (groupId == null || groupId.isEmpty()) return done(future, new OffsetDeleteResult(Errors.INVALID_GROUP_ID, List.of()));
        ClassicGroup group = groups.get(groupId);
        if (group == null || group.is(GroupState.DEAD)) return done(future, new OffsetDeleteResult(Errors.GROUP_ID_NOT_FOUND, List.of()));
        Set<String> subscribed = null;
        boolean checkSubscription = false;
        if (!group.is(GroupState.EMPTY)) {
            if (!ConsumerSubscription.CONSUMER_PROTOCOL_TYPE.equals(group.protocolType)) {
                return done(future, new OffsetDeleteResult(Errors.NON_EMPTY_GROUP, List.of()));
            }
            checkSubscription = true;
            subscribed = subscribedTopics(group);
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
                if (parts != null && parts.containsKey(p)) {
                    records.add(new CoordinatorRecord(group.partition, CoordinatorRecords.offsetKey(groupId, t.getKey(), p), null));
                    toRemove.add(Map.entry(t.getKey(), p));
                }
            }
        }
        if (records.isEmpty()) return done(future, new OffsetDeleteResult(Errors.NONE, results));
        append(group.partition, records).whenComplete((v, e) -> {
            if (e != null) {
                future.complete(new OffsetDeleteResult(Errors.COORDINATOR_NOT_AVAILABLE, List.of()));
                return;
            }
            for (Map.Entry<String, Integer> r : toRemove) removeOffset(group, r.getKey(), r.getValue());
            future.complete(new OffsetDeleteResult(Errors.NONE, results));
        });
        return future;
    }

    /** Union of the topics in the members' subscriptions for the selected protocol; null if any is unreadable. */
    private static Set<String> subscribedTopics(ClassicGroup group) {
        Set<String> all = new java.util.HashSet<>();
        for (GroupMember m : group.members.values()) {
            String protocol = group.protocolName != null ? group.protocolName
                    : (m.protocols.isEmpty() ? null : m.protocols.get(0).name());
            Set<String> topics = protocol == null ? null : ConsumerSubscription.topics(m.metadataFor(protocol));
            if (topics == null) return null;
            all.addAll(topics);
        }
        return all;
    }

    private static void removeOffset(ClassicGroup group, String topic, int partition) {
        TreeMap<Integer, CoordinatorRecords.OffsetValue> parts = group.offsets.get(topic);
        if (parts != null && parts.remove(partition) != null && parts.isEmpty()) group.offsets.remove(topic);
    }

    // ------------------------------------------------------------------ offset expiry

    /**
     * Deletes expired offsets (Kafka's rules): for an Empty group that had members, every offset
     * expires {@code offsets.retention} after the group became Empty; for a simple group (never had
     * members), each offset expires that long after its commit; for a Stable consumer group, offsets
     * of topics nobody subscribes to expire that long after their commit. Empty groups left with no
     * offsets are deleted too.
     */
    void expireOffsets() {
        long now = now();
        long retention = config.offsetsRetentionMs();
        for (ClassicGroup group : new ArrayList<>(groups.values())) {
            if (group.is(GroupState.DEAD)) continue;
            Set<String> subscribed = null;
            boolean byStateTime;
            if (group.protocolType == null) {
                byStateTime = false;
            } else if (group.is(GroupState.EMPTY)) {
                byStateTime = true;
            } else if (group.is(GroupState.STABLE) && ConsumerSubscription.CONSUMER_PROTOCOL_TYPE.equals(group.protocolType)) {
                subscribed = subscribedTopics(group);
                if (subscribed == null) continue;
                byStateTime = false;
            } else {
                continue;
            }
            List<CoordinatorRecord> records = new ArrayList<>();
            List<Object[]> expired = new ArrayList<>();
            for (Map.Entry<String, TreeMap<Integer, CoordinatorRecords.OffsetValue>> t : group.offsets.entrySet()) {
                if (subscribed != null && subscribed.contains(t.getKey())) continue;
                for (Map.Entry<Integer, CoordinatorRecords.OffsetValue> p : t.getValue().entrySet()) {
                    if (group.isPendingTransactional(t.getKey(), p.getKey())) continue;
                    long base = byStateTime ? group.stateTimestamp : p.getValue().commitTimestamp();
                    if (now - base >= retention) {
                        records.add(new CoordinatorRecord(group.partition,
                                CoordinatorRecords.offsetKey(group.groupId, t.getKey(), p.getKey()), null));
                        expired.add(new Object[]{t.getKey(), p.getKey(), p.getValue()});
                    }
                }
            }
            boolean dropGroup = group.is(GroupState.EMPTY) && expired.size() == countOffsets(group)
                    && group.pendingTransactionalOffsets.isEmpty() && group.pendingMembers.isEmpty();
            if (dropGroup) records.add(new CoordinatorRecord(group.partition, CoordinatorRecords.groupKey(group.groupId), null));
            if (records.isEmpty()) continue;
            append(group.partition, records).whenComplete((v, e) -> {
                if (e != null) return; // retried at the next check
                for (Object[] x : expired) {
                    TreeMap<Integer, CoordinatorRecords.OffsetValue> parts = group.offsets.get((String) x[0]);
                    // Only if nobody committed again in the meantime.
                    if (parts != null && parts.get((Integer) x[1]) == x[2]) removeOffset(group, (String) x[0], (Integer) x[1]);
                }
                if (dropGroup && groups.get(group.groupId) == group && group.is(GroupState.EMPTY) && !group.hasOffsets()
                        && group.pendingMembers.isEmpty()) {
                    group.transitionTo(GroupState.DEAD, now());
                    groups.remove(group.groupId);
                }
            });
        }
    }

    private static int countOffsets(ClassicGroup group) {
        int n = 0;
        for (TreeMap<Integer, CoordinatorRecords.OffsetValue> p : group.offsets.values()) n += p.size();
        return n;
    }

    // ------------------------------------------------------------------ replay

    /** Applies one record read back from the log at start-up. */
    void replay(CoordinatorRecord record) {
        CoordinatorRecords.Key key;
        try {
            key = CoordinatorRecords.readKey(record.key());
            if (key == null) {
                replaySkipped++;
                return;
            }
            if (key instanceof CoordinatorRecords.OffsetKey k) {
                if (record.isTombstone()) {
                    ClassicGroup g = groups.get(k.group());
                    if (g != null) removeOffset(g, k.topic(), k.partition());
                } else {
                    CoordinatorRecords.OffsetValue v = CoordinatorRecords.readOffsetValue(record.value());
                    getOrCreate(k.group()).offsets.computeIfAbsent(k.topic(), t -> new TreeMap<>()).put(k.partition(), v);
                }
            } else if (key instanceof CoordinatorRecords.GroupKey k) {
                if (record.isTombstone()) {
                    groups.remove(k.group());
                } else {
                    loadGroup(getOrCreate(k.group()), CoordinatorRecords.readGroupValue(record.value()));
                }
            }
        } catch (IllegalArgumentException e) {
            replaySkipped++;
        }
    }

    private static void loadGroup(ClassicGroup group, CoordinatorRecords.GroupValue v) {
        group.members.clear();
        group.staticMembers.clear();
        group.protocolType = v.protocolType();
        group.generation = v.generation();
        group.protocolName = v.protocolName();
        group.leaderId = v.leader();
        group.stateTimestamp = v.stateTimestamp();
        for (CoordinatorRecords.MemberValue m : v.members()) {
            GroupMember member = new GroupMember(m.memberId(), m.instanceId(), m.clientId(), m.clientHost(),
                    m.rebalanceTimeoutMs(), m.sessionTimeoutMs(), m.protocols());
            member.assignment = m.assignment() == null ? GroupMember.EMPTY_BYTES : m.assignment();
            group.members.put(member.memberId, member);
            if (member.instanceId != null) group.staticMembers.put(member.instanceId, member.memberId);
        }
        group.state = group.members.isEmpty() ? GroupState.EMPTY : GroupState.STABLE;
    }

    /** After replay: members of loaded groups must heartbeat within their session timeout from now. */
    void completeReplay() {
        for (ClassicGroup g : groups.values()) {
            for (GroupMember m : g.members.values()) scheduleHeartbeat(g, m, m.sessionTimeoutMs);
        }
        scheduleExpiry();
    }

    private void scheduleExpiry() {
        loop.schedule("offset-expiry", config.offsetsRetentionCheckIntervalMs(), () -> {
            expireOffsets();
            scheduleExpiry();
        });
    }

    // ------------------------------------------------------------------ shutdown

    private boolean shutdown;

    boolean isShutdown() {
        return shutdown;
    }

    /** Answers every parked JoinGroup/SyncGroup with NOT_COORDINATOR; later requests get the same. */
    void shutdown() {
        shutdown = true;
        for (ClassicGroup g : groups.values()) {
            for (GroupMember m : g.members.values()) {
                if (m.awaitingJoin != null) {
                    CompletableFuture<JoinResult> f = m.awaitingJoin;
                    m.awaitingJoin = null;
                    f.complete(JoinResult.error(Errors.NOT_COORDINATOR, m.memberId));
                }
                if (m.awaitingSync != null) {
                    CompletableFuture<SyncResult> f = m.awaitingSync;
                    m.awaitingSync = null;
                    f.complete(SyncResult.error(Errors.NOT_COORDINATOR));
                }
            }
        }
    }

    // ------------------------------------------------------------------ helpers

    private CoordinatorRecord groupRecord(ClassicGroup group, Map<String, byte[]> assignments) {
        return new CoordinatorRecord(group.partition, CoordinatorRecords.groupKey(group.groupId),
                CoordinatorRecords.groupValue(group.toRecord(assignments)));
    }

    /** Appends and continues on the coordinator thread once durable (or failed). */
    private CompletableFuture<Void> append(int partition, List<CoordinatorRecord> records) {
        CompletableFuture<Void> out = new CompletableFuture<>();
        CompletableFuture<Long> written;
        try {
            written = log.append(partition, records);
        } catch (RuntimeException e) {
            written = CompletableFuture.failedFuture(e);
        }
        written.whenComplete((offset, error) -> loop.execute(() -> {
            if (error != null) {
                out.completeExceptionally(error);
            } else {
                out.complete(null);
            }
        }));
        return out;
    }

    private static <T> CompletableFuture<T> done(CompletableFuture<T> f, T value) {
        f.complete(value);
        return f;
    }

    /** Test view: groups currently known. */
    Iterator<ClassicGroup> groupsIterator() {
        return groups.values().iterator();
    }
}
