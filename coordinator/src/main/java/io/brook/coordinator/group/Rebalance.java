package io.brook.coordinator.group;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import io.brook.coordinator.runtime.DurableWriter;
import io.brook.coordinator.runtime.EventLoop;
import io.brook.wire.protocol.Errors;

/**
 * How a classic group moves from one generation to the next (the transitions drawn in
 * {@link GroupState}): the join phase, with the initial delay of a group coming out of Empty and
 * the rebalance timeout; the choice of leader and protocol; the sync phase, which ends when the
 * leader's assignment is durable; and the timers that bound how long a member may stay silent
 * (session timeout) or take to send SyncGroup after a join phase (rebalance timeout).
 * {@link ClassicMembership} calls in here when a request changes the membership.
 *
 * <p><b>Threading.</b> Not thread-safe: every method, timer and log-write continuation runs on the
 * coordinator's owner thread, and the futures of parked JoinGroup and SyncGroup calls complete
 * there.
 *
 * <p><b>Durability.</b> The parked SyncGroups of a generation are answered, and the group becomes
 * Stable, only once the group record with the leader's assignment is durable; if that write fails
 * they are answered with COORDINATOR_NOT_AVAILABLE and a new rebalance starts. A join phase that
 * ends with no members writes the Empty group record without waiting for it (nobody waits for an
 * answer).
 */
final class Rebalance {

    private final GroupCoordinatorConfig config;
    private final EventLoop loop;
    private final DurableWriter writer;
    private final ClassicGroups groups;

    Rebalance(GroupCoordinatorConfig config, EventLoop loop, DurableWriter writer, ClassicGroups groups) {
        this.config = config;
        this.loop = loop;
        this.writer = writer;
        this.groups = groups;
    }

    private static String sessionKey(ClassicGroup g, String memberId) {
        return "heartbeat\u0000" + g.groupId + "\u0000" + memberId;
    }

    private static String joinKey(ClassicGroup g) {
        return "join\u0000" + g.groupId;
    }

    private static String syncKey(ClassicGroup g) {
        return "sync\u0000" + g.groupId;
    }

    // ------------------------------------------------------------------ sessions

    /**
     * (Re-)arms the session timer of a member, or of a member id handed out with MEMBER_ID_REQUIRED
     * that has not joined yet: when it fires the member is removed.
     */
    void scheduleSession(ClassicGroup group, String memberId, int timeoutMs) {
        loop.schedule(sessionKey(group, memberId), timeoutMs, () -> onSessionExpired(group.groupId, memberId));
    }

    void cancelSession(ClassicGroup group, String memberId) {
        loop.cancel(sessionKey(group, memberId));
    }

    private void onSessionExpired(String groupId, String memberId) {
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
            scheduleSession(group, memberId, member.sessionTimeoutMs);
            return;
        }
        removeMember(group, memberId);
        afterMembershipShrank(group);
    }

    /** Removes a member, answering its parked JoinGroup or SyncGroup with UNKNOWN_MEMBER_ID. */
    void removeMember(ClassicGroup group, String memberId) {
        GroupMember m = group.members.get(memberId);
        if (m == null) return;
        cancelSession(group, memberId);
        CompletableFuture<JoinResult> parked = group.unparkJoin(m);
        if (parked != null) {
            parked.complete(JoinResult.error(Errors.UNKNOWN_MEMBER_ID, memberId));
        }
        if (m.awaitingSync != null) {
            CompletableFuture<SyncResult> f = m.awaitingSync;
            m.awaitingSync = null;
            f.complete(SyncResult.error(Errors.UNKNOWN_MEMBER_ID));
        }
        group.remove(memberId);
    }

    /** After members left or expired: a settled group rebalances, a joining one may now be complete. */
    void afterMembershipShrank(ClassicGroup group) {
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

    // ------------------------------------------------------------------ join phase

    void maybePrepareRebalance(ClassicGroup group) {
        if (group.is(GroupState.STABLE) || group.is(GroupState.COMPLETING_REBALANCE) || group.is(GroupState.EMPTY)) {
            prepareRebalance(group);
        }
    }

    void prepareRebalance(ClassicGroup group) {
        if (group.is(GroupState.COMPLETING_REBALANCE)) {
            resetAndPropagateAssignmentError(group, Errors.REBALANCE_IN_PROGRESS);
        }
        loop.cancel(syncKey(group));
        group.pendingSyncMembers.clear();
        boolean initial = group.is(GroupState.EMPTY);
        group.transitionTo(GroupState.PREPARING_REBALANCE, loop.now());
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
        if (!groups.isCurrent(group) || !group.is(GroupState.PREPARING_REBALANCE)) return;
        if (group.newMemberAdded && remaining > 0) {
            group.newMemberAdded = false;
            int delay = Math.min(config.initialRebalanceDelayMs(), remaining);
            loop.schedule(joinKey(group), delay, () -> onInitialDelayExpired(group, remaining - delay));
        } else {
            completeJoin(group);
        }
    }

    void maybeCompleteJoin(ClassicGroup group) {
        if (group.is(GroupState.PREPARING_REBALANCE) && !group.initialDelayActive && group.allMembersJoined()) {
            completeJoin(group);
        }
    }

    /** End of the join phase: drop members that did not rejoin, start the next generation, answer the joins. */
    private void completeJoin(ClassicGroup group) {
        loop.cancel(joinKey(group));
        group.initialDelayActive = false;
        if (!groups.isCurrent(group) || !group.is(GroupState.PREPARING_REBALANCE)) return;
        // Dynamic members that did not rejoin in time are removed; static members are kept (KIP-345).
        for (GroupMember m : new ArrayList<>(group.members.values())) {
            if (m.awaitingJoin == null && !m.isStatic()) {
                cancelSession(group, m.memberId);
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
            group.transitionTo(GroupState.EMPTY, loop.now());
            writer.write(group.partition, List.of(group.metadataRecord(null)));
            return;
        }
        group.protocolName = group.selectProtocol();
        group.transitionTo(GroupState.COMPLETING_REBALANCE, loop.now());
        for (GroupMember m : group.members.values()) {
            m.assignment = GroupMember.EMPTY_BYTES;
            group.pendingSyncMembers.add(m.memberId);
            CompletableFuture<JoinResult> f = group.unparkJoin(m);
            if (f != null) {
                m.isNew = false;
                scheduleSession(group, m.memberId, m.sessionTimeoutMs);
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

    /** The JoinGroup answer of the current generation; the members list goes to the leader only. */
    static JoinResult currentJoinResult(ClassicGroup group, GroupMember member, boolean skipAssignment) {
        List<JoinedMember> list = List.of();
        if (group.isLeader(member.memberId)) {
            list = new ArrayList<>(group.members.size());
            for (GroupMember m : group.members.values()) {
                list.add(new JoinedMember(m.memberId, m.instanceId, m.metadataFor(group.protocolName)));
            }
        }
        return new JoinResult(Errors.NONE, group.generation, group.protocolType, group.protocolName,
                group.leaderId, skipAssignment, member.memberId, list);
    }

    // ------------------------------------------------------------------ sync phase

    private void onPendingSyncExpired(ClassicGroup group, int generation) {
        if (!groups.isCurrent(group) || group.generation != generation) return;
        if (!(group.is(GroupState.COMPLETING_REBALANCE) || group.is(GroupState.STABLE))) return;
        if (group.pendingSyncMembers.isEmpty()) return;
        for (String id : new ArrayList<>(group.pendingSyncMembers)) {
            removeMember(group, id);
        }
        prepareRebalance(group);
        maybeCompleteJoin(group);
    }

    /** The leader's assignment: make it durable, then move to Stable and answer every parked SyncGroup. */
    void completeSync(ClassicGroup group, Map<String, byte[]> given) {
        Map<String, byte[]> assignments = new HashMap<>();
        for (String id : group.members.keySet()) {
            byte[] a = given == null ? null : given.get(id);
            assignments.put(id, a == null ? GroupMember.EMPTY_BYTES : a);
        }
        int generation = group.generation;
        writer.write(group.partition, List.of(group.metadataRecord(assignments))).whenComplete((v, e) -> {
            if (!groups.isCurrent(group) || group.generation != generation
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
            group.transitionTo(GroupState.STABLE, loop.now());
            propagateAssignment(group, Errors.NONE);
        });
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
                scheduleSession(group, m.memberId, m.sessionTimeoutMs);
                f.complete(error == Errors.NONE
                        ? new SyncResult(Errors.NONE, group.protocolType, group.protocolName, m.assignment)
                        : SyncResult.error(error));
            }
        }
    }

    // ------------------------------------------------------------------ shutdown

    /** Answers every parked JoinGroup and SyncGroup with {@code error} (NOT_COORDINATOR at shutdown). */
    void answerParked(Errors error) {
        for (ClassicGroup g : groups.all()) answerParked(g, error);
    }

    private static void answerParked(ClassicGroup g, Errors error) {
        for (GroupMember m : g.members.values()) {
            CompletableFuture<JoinResult> join = g.unparkJoin(m);
            if (join != null) {
                join.complete(JoinResult.error(error, m.memberId));
            }
            if (m.awaitingSync != null) {
                CompletableFuture<SyncResult> f = m.awaitingSync;
                m.awaitingSync = null;
                f.complete(SyncResult.error(error));
            }
        }
    }

    /**
     * The groups of {@code partition} of {@code __consumer_offsets} are no longer this node's (its
     * leadership moved): their parked JoinGroups and SyncGroups are answered NOT_COORDINATOR, so
     * that the members find the new coordinator, their timers are cancelled and they are forgotten.
     * Writes of theirs still in flight fail ({@link io.brook.coordinator.runtime.DurableWriter}).
     */
    void unload(int partition) {
        for (ClassicGroup g : groups.snapshot()) {
            if (g.partition != partition) continue;
            answerParked(g, Errors.NOT_COORDINATOR);
            for (String memberId : g.members.keySet()) cancelSession(g, memberId);
            for (String memberId : g.pendingMembers) cancelSession(g, memberId);
            loop.cancel(joinKey(g));
            loop.cancel(syncKey(g));
            groups.remove(g.groupId);
        }
    }
}
