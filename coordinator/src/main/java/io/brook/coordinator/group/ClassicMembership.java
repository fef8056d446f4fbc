package io.brook.coordinator.group;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import io.brook.coordinator.runtime.DurableWriter;
import io.brook.wire.protocol.Errors;

/**
 * The requests of Kafka's classic group protocol — JoinGroup, SyncGroup, Heartbeat, LeaveGroup —
 * checked against who the member claims to be (member id, {@code group.instance.id}, generation)
 * and applied to its group; the rebalances they start or finish are {@link Rebalance}'s.
 *
 * <p><b>Threading.</b> Not thread-safe: every method and log-write continuation runs on the
 * coordinator's owner thread. A JoinGroup or SyncGroup may be parked; its future then completes
 * later on that thread, when the phase it waits for ends.
 *
 * <p><b>Durability.</b> A static member that comes back to a Stable group with the same protocols
 * (KIP-345) is answered only once the group record with its new member id is durable; if that write
 * fails the previous incarnation is put back and the join fails with COORDINATOR_NOT_AVAILABLE.
 * SyncGroup answers wait for the leader's assignment to be durable (see {@link Rebalance}).
 * Heartbeat and LeaveGroup are answered at once.
 */
final class ClassicMembership {

    private final GroupCoordinatorConfig config;
    private final DurableWriter writer;
    private final ClassicGroups groups;
    private final Rebalance rebalance;

    ClassicMembership(GroupCoordinatorConfig config, DurableWriter writer, ClassicGroups groups, Rebalance rebalance) {
        this.config = config;
        this.writer = writer;
        this.groups = groups;
        this.rebalance = rebalance;
    }

    // ------------------------------------------------------------------ JoinGroup

    CompletableFuture<JoinResult> join(JoinRequest req) {
        CompletableFuture<JoinResult> future = new CompletableFuture<>();
        String memberId = req.memberId() == null ? "" : req.memberId();
        if (req.groupId() == null || req.groupId().isEmpty()) {
            return CompletableFuture.completedFuture(JoinResult.error(Errors.INVALID_GROUP_ID, memberId));
        }
        if (req.sessionTimeoutMs() < config.minSessionTimeoutMs() || req.sessionTimeoutMs() > config.maxSessionTimeoutMs()) {
            return CompletableFuture.completedFuture(JoinResult.error(Errors.INVALID_SESSION_TIMEOUT, memberId));
        }
        boolean unknownMember = memberId.isEmpty();
        ClassicGroup group = groups.get(req.groupId());
        if (group == null) {
            if (!unknownMember) return CompletableFuture.completedFuture(JoinResult.error(Errors.UNKNOWN_MEMBER_ID, memberId));
            group = groups.getOrCreateWithinLimit(req.groupId());
            if (group == null) {
                return CompletableFuture.completedFuture(JoinResult.error(Errors.COORDINATOR_NOT_AVAILABLE, memberId));
            }
        }
        if (!acceptJoiningMember(group, memberId)) {
            if (group.pendingMembers.remove(memberId)) {
                rebalance.cancelSession(group, memberId);
                rebalance.maybeCompleteJoin(group);
            } else if (group.hasMember(memberId)) {
                rebalance.removeMember(group, memberId);
                rebalance.afterMembershipShrank(group);
            }
            return CompletableFuture.completedFuture(JoinResult.error(Errors.GROUP_MAX_SIZE_REACHED, ""));
        }
        if (group.is(GroupState.DEAD)) {
            return CompletableFuture.completedFuture(JoinResult.error(Errors.COORDINATOR_NOT_AVAILABLE, memberId));
        }
        if (!group.supportsProtocols(req.protocolType(), req.protocols())) {
            return CompletableFuture.completedFuture(JoinResult.error(Errors.INCONSISTENT_GROUP_PROTOCOL, memberId));
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
            if (group.pendingMembers.size() >= config.maxGroupSize()) {
                // group.max.size bounds the ids handed out and not used yet too: the oldest makes
                // room (its client, if still there, gets UNKNOWN_MEMBER_ID and joins afresh)
                String oldest = group.pendingMembers.iterator().next();
                group.pendingMembers.remove(oldest);
                rebalance.cancelSession(group, oldest);
            }
            group.pendingMembers.add(newId);
            rebalance.scheduleSession(group, newId, req.sessionTimeoutMs());
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
                    future.complete(Rebalance.currentJoinResult(group, member, false));
                } else {
                    updateMemberAndRebalance(group, member, req, future);
                }
            }
            case STABLE -> {
                if (group.isLeader(memberId) || !member.matches(req.protocols())) {
                    // The leader rejoining means it wants a new assignment (e.g. metadata changed).
                    updateMemberAndRebalance(group, member, req, future);
                } else {
                    future.complete(Rebalance.currentJoinResult(group, member, false));
                }
            }
            default -> future.complete(JoinResult.error(Errors.UNKNOWN_MEMBER_ID, memberId));
        }
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
        rebalance.scheduleSession(group, memberId, config.newMemberJoinTimeoutMs());
        rebalance.maybePrepareRebalance(group);
        rebalance.maybeCompleteJoin(group);
    }

    private void updateMemberAndRebalance(ClassicGroup group, GroupMember member, JoinRequest req, CompletableFuture<JoinResult> future) {
        group.setProtocols(member, req.protocols());
        member.rebalanceTimeoutMs = req.rebalanceTimeoutMs();
        member.sessionTimeoutMs = req.sessionTimeoutMs();
        member.clientId = req.clientId();
        member.clientHost = req.clientHost();
        CompletableFuture<JoinResult> parked = group.unparkJoin(member);
        if (parked != null && parked != future) {
            answerAlike(parked, future);
        }
        group.parkJoin(member, future);
        rebalance.scheduleSession(group, member.memberId, member.sessionTimeoutMs);
        rebalance.maybePrepareRebalance(group);
        rebalance.maybeCompleteJoin(group);
    }

    /** A static member came back with an empty member id: the new incarnation takes over the old id's place. */
    private void replaceStaticMember(ClassicGroup group, JoinRequest req, CompletableFuture<JoinResult> future) {
        String oldId = group.staticMembers.get(req.groupInstanceId());
        String newId = req.groupInstanceId() + "-" + UUID.randomUUID();
        GroupMember member = group.members.get(oldId);
        // The old incarnation's parked calls are answered as fenced.
        CompletableFuture<JoinResult> parked = group.unparkJoin(member);
        if (parked != null) {
            parked.complete(JoinResult.error(Errors.FENCED_INSTANCE_ID, oldId));
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
        rebalance.cancelSession(group, oldId);
        group.replaceStaticMember(oldId, newId);
        group.setProtocols(member, req.protocols());
        member.rebalanceTimeoutMs = req.rebalanceTimeoutMs();
        member.sessionTimeoutMs = req.sessionTimeoutMs();
        member.clientId = req.clientId();
        member.clientHost = req.clientHost();
        rebalance.scheduleSession(group, newId, member.sessionTimeoutMs);

        switch (group.state) {
            case STABLE -> {
                String next = group.selectProtocol();
                if (next != null && next.equals(group.protocolName)) {
                    // KIP-345: no rebalance; persist the new member id, then hand back the current
                    // generation. From v9 the leader gets the member list but must not reassign
                    // (KIP-814); older leaders get no list (they would reassign otherwise).
                    int generation = group.generation;
                    writer.write(group.partition, List.of(group.metadataRecord(null))).whenComplete((v, e) -> {
                        if (e == null) {
                            if (req.version() >= 9) {
                                future.complete(Rebalance.currentJoinResult(group, member, group.isLeader(newId)));
                            } else {
                                future.complete(new JoinResult(Errors.NONE, group.generation, group.protocolType,
                                        group.protocolName, group.leaderId, false, newId, List.of()));
                            }
                            return;
                        }
                        if (group.members.get(newId) == member && group.generation == generation) {
                            rebalance.cancelSession(group, newId);
                            group.replaceStaticMember(newId, oldId);
                            group.setProtocols(member, oldProtocols);
                            member.rebalanceTimeoutMs = oldRebalance;
                            member.sessionTimeoutMs = oldSession;
                            member.clientId = oldClientId;
                            member.clientHost = oldHost;
                            rebalance.scheduleSession(group, oldId, member.sessionTimeoutMs);
                        }
                        future.complete(JoinResult.error(Errors.COORDINATOR_NOT_AVAILABLE, ""));
                    });
                } else {
                    group.parkJoin(member, future);
                    rebalance.prepareRebalance(group);
                    rebalance.maybeCompleteJoin(group);
                }
            }
            case COMPLETING_REBALANCE -> {
                group.parkJoin(member, future);
                rebalance.prepareRebalance(group);
                rebalance.maybeCompleteJoin(group);
            }
            case PREPARING_REBALANCE -> {
                group.parkJoin(member, future);
                rebalance.maybeCompleteJoin(group);
            }
            default -> future.complete(JoinResult.error(Errors.UNKNOWN_MEMBER_ID, newId));
        }
    }

    /**
     * A member asked again while its earlier JoinGroup or SyncGroup still waits (a client that
     * pipelines them, as kafkajs does when several of its fetchers see the same change, or one
     * that retries): the earlier request gets the answer the later one gets. That is what a broker
     * that reads a connection's requests one at a time answers (the later request, read once the
     * earlier one was answered, finds the same generation); answering the earlier one with an
     * error instead would make the client give up its member id and join anew, leaving its old
     * one behind until its session expired.
     */
    private static <T> void answerAlike(CompletableFuture<T> earlier, CompletableFuture<T> later) {
        later.whenComplete((result, failure) -> {
            if (failure != null) {
                earlier.completeExceptionally(failure);
            } else {
                earlier.complete(result);
            }
        });
    }

    // ------------------------------------------------------------------ SyncGroup

    CompletableFuture<SyncResult> sync(SyncRequest req) {
        CompletableFuture<SyncResult> future = new CompletableFuture<>();
        ClassicGroup group = req.groupId() == null ? null : groups.get(req.groupId());
        if (req.groupId() == null || req.groupId().isEmpty()) return CompletableFuture.completedFuture(SyncResult.error(Errors.INVALID_GROUP_ID));
        if (group == null) return CompletableFuture.completedFuture(SyncResult.error(Errors.UNKNOWN_MEMBER_ID));
        if (group.is(GroupState.DEAD)) return CompletableFuture.completedFuture(SyncResult.error(Errors.COORDINATOR_NOT_AVAILABLE));
        Errors invalid = validateMember(group, req.memberId(), req.groupInstanceId());
        if (invalid != Errors.NONE) return CompletableFuture.completedFuture(SyncResult.error(invalid));
        if (req.generationId() != group.generation) return CompletableFuture.completedFuture(SyncResult.error(Errors.ILLEGAL_GENERATION));
        if (req.version() >= 5) {
            if ((req.protocolType() != null && !req.protocolType().equals(group.protocolType))
                    || (req.protocolName() != null && !req.protocolName().equals(group.protocolName))) {
                return CompletableFuture.completedFuture(SyncResult.error(Errors.INCONSISTENT_GROUP_PROTOCOL));
            }
        }
        GroupMember member = group.members.get(req.memberId());
        switch (group.state) {
            case PREPARING_REBALANCE -> future.complete(SyncResult.error(Errors.REBALANCE_IN_PROGRESS));
            case COMPLETING_REBALANCE -> {
                if (member.awaitingSync != null && member.awaitingSync != future) {
                    answerAlike(member.awaitingSync, future);
                }
                member.awaitingSync = future;
                group.pendingSyncMembers.remove(member.memberId);
                rebalance.scheduleSession(group, member.memberId, member.sessionTimeoutMs);
                if (group.isLeader(member.memberId)) rebalance.completeSync(group, req.assignments());
            }
            case STABLE -> {
                group.pendingSyncMembers.remove(member.memberId);
                rebalance.scheduleSession(group, member.memberId, member.sessionTimeoutMs);
                future.complete(new SyncResult(Errors.NONE, group.protocolType, group.protocolName, member.assignment));
            }
            default -> future.complete(SyncResult.error(Errors.UNKNOWN_MEMBER_ID));
        }
        return future;
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
        rebalance.scheduleSession(group, memberId, member.sessionTimeoutMs);
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
                    rebalance.removeMember(group, current);
                    removed = true;
                    error = Errors.NONE;
                }
            } else if (group.pendingMembers.remove(memberId)) {
                rebalance.cancelSession(group, memberId);
                removed = true;
                error = Errors.NONE;
            } else if (!group.hasMember(memberId)) {
                error = Errors.UNKNOWN_MEMBER_ID;
            } else {
                rebalance.removeMember(group, memberId);
                removed = true;
                error = Errors.NONE;
            }
            results.add(new MemberLeaveResult(memberId, l.groupInstanceId(), error));
        }
        if (removed) rebalance.afterMembershipShrank(group);
        return new LeaveResult(Errors.NONE, results);
    }

    /** The member id, or the current incarnation of the static member, that a request names. */
    private static Errors validateMember(ClassicGroup group, String memberId, String groupInstanceId) {
        if (groupInstanceId != null) {
            String current = group.staticMembers.get(groupInstanceId);
            if (current == null) return Errors.UNKNOWN_MEMBER_ID;
            if (!current.equals(memberId)) return Errors.FENCED_INSTANCE_ID;
            return Errors.NONE;
        }
        return group.hasMember(memberId) ? Errors.NONE : Errors.UNKNOWN_MEMBER_ID;
    }
}
