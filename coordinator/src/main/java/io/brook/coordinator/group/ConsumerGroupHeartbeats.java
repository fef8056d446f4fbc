package io.brook.coordinator.group;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.DurableWriter;
import io.brook.coordinator.runtime.EventLoop;
import io.brook.wire.message.ConsumerGroupHeartbeatRequest;
import io.brook.wire.message.ConsumerGroupHeartbeatResponse;
import io.brook.wire.protocol.Errors;
import io.brook.wire.protocol.LogSafe;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ConsumerGroupHeartbeat (KIP-848): members of a consumer group join, stay, change their
 * subscription and leave through this one request, and the coordinator computes the assignment
 * ({@link ServerAssignors}) and hands it out step by step ({@link ConsumerReconciliation}). Kafka's
 * rules, Kafka's errors: FENCED_MEMBER_EPOCH for a member whose epoch the coordinator does not
 * expect (it rejoins with epoch 0), UNKNOWN_MEMBER_ID for one it does not know,
 * UNRELEASED_INSTANCE_ID for a static member whose previous incarnation has not left,
 * GROUP_MAX_SIZE_REACHED, UNSUPPORTED_ASSIGNOR, INVALID_REQUEST with the reason, and
 * GROUP_ID_NOT_FOUND when the id belongs to a classic group of another protocol type (Connect's,
 * say). A classic consumer group with members makes a joining member wait instead
 * (COORDINATOR_LOAD_IN_PROGRESS, which clients retry) until they have left: Brook has no mixed
 * groups, and so a rolling switch of an application's protocol still works.
 *
 * <p><b>Durability.</b> As in Kafka, every change is written to {@code __consumer_offsets}
 * ({@link ConsumerGroupRecords}: the group epoch, each member's metadata, target and current
 * assignment, the target's epoch) and the heartbeat is answered once the records are durable, so
 * that after a restart the members carry on where they were ({@link GroupReplay} loads them). The
 * records of one request are collected in {@link #records} while it runs and written as one batch;
 * if that write fails the answer is COORDINATOR_NOT_AVAILABLE and the state in memory stays as
 * computed (a restart replays what was written).
 *
 * <p>Timers: a member that sends no heartbeat for {@code group.consumer.session.timeout.ms} (or the
 * group's own {@code consumer.session.timeout.ms}, {@link GroupConfigOverrides}) is removed (a static member that left with epoch -2 too, once that long has passed), and one that
 * does not confirm a revocation within its rebalance timeout is removed as well. Either removal
 * starts a new group epoch. Coordinator thread only.
 */
final class ConsumerGroupHeartbeats {

    private static final Logger LOG = LoggerFactory.getLogger(ConsumerGroupHeartbeats.class);
    private static final int LEAVE_EPOCH = -1;

    private final ConsumerGroupConfig config;
    private final EventLoop loop;
    private final ClassicGroups groups;
    private final DurableWriter writer;
    private ConsumerGroupTopics topics = ConsumerGroupTopics.NONE;
    private GroupConfigOverrides overrides = GroupConfigOverrides.NONE;
    /** The records of the request or timer running now (null between them). */
    private List<CoordinatorRecord> records;

    ConsumerGroupHeartbeats(ConsumerGroupConfig config, EventLoop loop, ClassicGroups groups, DurableWriter writer) {
        this.config = config;
        this.loop = loop;
        this.groups = groups;
        this.writer = writer;
    }

    void topics(ConsumerGroupTopics topics) {
        this.topics = Objects.requireNonNull(topics);
    }

    ConsumerGroupTopics topics() {
        return topics;
    }

    void overrides(GroupConfigOverrides overrides) {
        this.overrides = Objects.requireNonNull(overrides);
    }

    /** The settings in force for group {@code groupId}: the broker's, with the group's own over them. */
    private ConsumerGroupConfig config(String groupId) {
        return config.forGroup(overrides.of(groupId));
    }

    /** A failure of the request as a whole. */
    private static final class Refused extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final Errors error;

        Refused(Errors error, String message) {
            super(message, null, false, false);
            this.error = error;
        }
    }

    static ConsumerGroupHeartbeatResponse error(Errors error, String message) {
        return new ConsumerGroupHeartbeatResponse().errorCode(error.code()).errorMessage(message);
    }

    /**
     * Answers a heartbeat once what it changed is durable.
     *
     * @param mayDescribe which topics the client's principal may describe (a pattern subscription
     *                    covers only those), or null for all
     */
    CompletableFuture<ConsumerGroupHeartbeatResponse> heartbeat(ConsumerGroupHeartbeatRequest r, short version,
                                                                String clientId, String clientHost,
                                                                java.util.function.Predicate<String> mayDescribe) {
        records = new ArrayList<>();
        ConsumerGroupHeartbeatResponse response;
        try {
            validate(r, version);
            if (r.memberEpoch() == LEAVE_EPOCH || r.memberEpoch() == ConsumerGroupMember.LEFT_STATIC_EPOCH) {
                response = leave(r);
            } else {
                response = join(r, version, clientId, clientHost, mayDescribe);
            }
        } catch (Refused e) {
            response = error(e.error, e.getMessage());
        }
        ConsumerGroupHeartbeatResponse answer = response;
        return flush().handle((v, e) -> e == null ? answer
                : error(Errors.COORDINATOR_NOT_AVAILABLE, "The group's state could not be written."));
    }

    /** Writes the records collected since {@link #records} was set, as one batch. */
    private CompletableFuture<Void> flush() {
        List<CoordinatorRecord> batch = records;
        records = null;
        if (batch.isEmpty()) return CompletableFuture.completedFuture(null);
        return writer.write(batch.get(0).partition(), batch);
    }

    private void emit(CoordinatorRecord record) {
        records.add(record);
    }

    /** What a member said of itself, as its metadata record holds it. */
    private record Said(String instanceId, String rackId, String clientId, String clientHost, List<String> names,
                        String regex, int rebalanceTimeoutMs, String assignor) {
        static Said of(ConsumerGroupMember m) {
            return new Said(m.instanceId, m.rackId, m.clientId, m.clientHost, m.subscribedTopicNames,
                    m.subscribedTopicRegex, m.rebalanceTimeoutMs, m.serverAssignor);
        }
    }

    /** Where a member stands, as its current-assignment record holds it. */
    private record Holds(int epoch, int previousEpoch, ConsumerGroupMember.State state, Map<UUID, Set<Integer>> assigned,
                         Map<UUID, Set<Integer>> pending) {
        static Holds of(ConsumerGroupMember m) {
            return new Holds(m.memberEpoch, m.previousMemberEpoch, m.state, m.assigned, m.pendingRevocation);
        }
    }

    private void validate(ConsumerGroupHeartbeatRequest r, short version) {
        if (r.groupId() == null || r.groupId().isEmpty()) throw new Refused(Errors.INVALID_REQUEST, "GroupId can't be empty.");
        if (r.instanceId() != null && r.instanceId().isEmpty()) throw new Refused(Errors.INVALID_REQUEST, "InstanceId can't be empty.");
        if (r.rackId() != null && r.rackId().isEmpty()) throw new Refused(Errors.INVALID_REQUEST, "RackId can't be empty.");
        int epoch = r.memberEpoch();
        boolean noMemberId = r.memberId() == null || r.memberId().isEmpty();
        if (epoch > 0 || epoch == LEAVE_EPOCH) {
            if (noMemberId) throw new Refused(Errors.INVALID_REQUEST, "MemberId can't be empty.");
        } else if (epoch == 0) {
            if (version >= 1 && noMemberId) throw new Refused(Errors.INVALID_REQUEST, "MemberId can't be empty.");
            if (r.rebalanceTimeoutMs() == -1) throw new Refused(Errors.INVALID_REQUEST, "RebalanceTimeoutMs must be provided in first request.");
            if (r.topicPartitions() == null || !r.topicPartitions().isEmpty()) {
                throw new Refused(Errors.INVALID_REQUEST, "TopicPartitions must be empty when (re-)joining.");
            }
            // an empty subscription is one (a pattern consumer joins so while nothing matches yet); none at all is not
            if (r.subscribedTopicNames() == null && (version < 1 || r.subscribedTopicRegex() == null)) {
                throw new Refused(Errors.INVALID_REQUEST, "SubscribedTopicNames or SubscribedTopicRegex must be set in first request.");
            }
        } else if (epoch == ConsumerGroupMember.LEFT_STATIC_EPOCH) {
            if (noMemberId) throw new Refused(Errors.INVALID_REQUEST, "MemberId can't be empty.");
            if (r.instanceId() == null) throw new Refused(Errors.INVALID_REQUEST, "InstanceId can't be null.");
        } else {
            throw new Refused(Errors.INVALID_REQUEST, "MemberEpoch is invalid.");
        }
        if (version >= 1 && r.subscribedTopicRegex() != null && !r.subscribedTopicRegex().isEmpty()
                && ConsumerGroup.compile(r.subscribedTopicRegex()) == null) {
            throw new Refused(Errors.INVALID_REGULAR_EXPRESSION, "SubscribedTopicRegex " + r.subscribedTopicRegex() + " is not a valid regular expression.");
        }
        if (r.serverAssignor() != null && !config.assignors().contains(r.serverAssignor())) {
            throw new Refused(Errors.UNSUPPORTED_ASSIGNOR, "ServerAssignor " + r.serverAssignor()
                    + " is not supported. Supported assignors: " + String.join(", ", config.assignors()) + ".");
        }
    }

    // ------------------------------------------------------------------ join and heartbeat

    private ConsumerGroupHeartbeatResponse join(ConsumerGroupHeartbeatRequest r, short version, String clientId, String clientHost,
                                                java.util.function.Predicate<String> mayDescribe) {
        String groupId = r.groupId();
        int epoch = r.memberEpoch();
        ClassicGroup group = groups.get(groupId);
        if (group != null && (group.is(GroupState.DEAD) || (group.modern == null && !isEmptyClassic(group)))) {
            if (group.is(GroupState.DEAD)) throw new Refused(Errors.COORDINATOR_NOT_AVAILABLE, null);
            if (ConsumerSubscription.CONSUMER_PROTOCOL_TYPE.equals(group.protocolType)) {
                // a rolling switch from the classic protocol: this member waits (its client retries) until
                // the classic members have left, and the group, empty, becomes a consumer group
                throw new Refused(Errors.COORDINATOR_LOAD_IN_PROGRESS, "Group " + groupId
                        + " still has members of the classic protocol; this member joins once they have left.");
            }
            throw new Refused(Errors.GROUP_ID_NOT_FOUND, "Group " + groupId + " is not a consumer group.");
        }
        if (epoch != 0 && (group == null || group.modern == null)) {
            throw new Refused(Errors.UNKNOWN_MEMBER_ID, "Member " + r.memberId() + " is not a member of group " + groupId + ".");
        }
        if (group == null) {
            group = groups.getOrCreateWithinLimit(groupId);
            if (group == null) throw new Refused(Errors.COORDINATOR_NOT_AVAILABLE, null);
        }
        if (group.modern == null) {
            group.modern = new ConsumerGroup();
            group.stateTimestamp = loop.now();
        }
        ConsumerGroup cg = group.modern;
        String memberId = r.memberId() == null || r.memberId().isEmpty() ? UUID.randomUUID().toString() : r.memberId();
        ConsumerGroupMember member = member(group, cg, memberId, epoch, r.instanceId(), r.topicPartitions());
        boolean isNew = !cg.members.containsKey(member.memberId);
        Said said = Said.of(member);
        Holds holds = Holds.of(member);

        List<String> oldNames = member.subscribedTopicNames;
        String oldRegex = member.subscribedTopicRegex;
        if (r.instanceId() != null) member.instanceId = r.instanceId();
        if (r.rackId() != null) member.rackId = r.rackId();
        if (r.rebalanceTimeoutMs() != -1) member.rebalanceTimeoutMs = r.rebalanceTimeoutMs();
        if (r.serverAssignor() != null) member.serverAssignor = r.serverAssignor();
        if (r.subscribedTopicNames() != null) member.subscribedTopicNames = List.copyOf(r.subscribedTopicNames());
        if (version >= 1 && r.subscribedTopicRegex() != null) {
            member.subscribedTopicRegex = r.subscribedTopicRegex().isEmpty() ? null : r.subscribedTopicRegex();
        }
        member.mayDescribe = mayDescribe;
        member.clientId = clientId == null ? "" : clientId;
        member.clientHost = clientHost == null ? "" : clientHost;
        boolean bump = isNew || !oldNames.equals(member.subscribedTopicNames) || !Objects.equals(oldRegex, member.subscribedTopicRegex);
        if (isNew) cg.add(member);
        if (isNew || !said.equals(Said.of(member))) emit(ConsumerGroupRecords.member(group, member));

        Map<String, ConsumerGroupTopics.TopicInfo> subscribed = cg.resolveSubscriptions(topics, null);
        if (bump || !subscribed.equals(cg.subscribedTopics)) {
            cg.subscribedTopics = subscribed;
            cg.groupEpoch++;
            emit(ConsumerGroupRecords.groupEpoch(group));
        }
        if (cg.groupEpoch > cg.assignmentEpoch) computeTarget(group, cg);

        Map<UUID, Set<Integer>> before = member.assigned;
        ConsumerReconciliation.reconcile(cg, member, cg.assignmentEpoch, r.topicPartitions());
        if (isNew || !holds.equals(Holds.of(member))) emit(ConsumerGroupRecords.currentAssignment(group, member));
        scheduleSession(group, member.memberId);
        if (member.state == ConsumerGroupMember.State.UNREVOKED_PARTITIONS) {
            scheduleRebalanceTimeout(group, member);
        } else {
            loop.cancel(rebalanceKey(groupId, member.memberId));
        }
        ConsumerGroupHeartbeatResponse response = new ConsumerGroupHeartbeatResponse().memberId(member.memberId)
                .memberEpoch(member.memberEpoch).heartbeatIntervalMs(config(groupId).heartbeatIntervalMs());
        boolean fullRequest = epoch == 0
                || (r.rebalanceTimeoutMs() != -1 && r.subscribedTopicNames() != null && r.topicPartitions() != null);
        if (fullRequest || !before.equals(member.assigned)) response.assignment(assignment(member.assigned));
        return response;
    }

    private static boolean isEmptyClassic(ClassicGroup group) {
        return group.is(GroupState.EMPTY) && group.pendingMembers.isEmpty();
    }

    /** The member a heartbeat is about, created for a join; Kafka's checks of its id and epoch. */
    private ConsumerGroupMember member(ClassicGroup group, ConsumerGroup cg, String memberId, int epoch, String instanceId,
                                       List<ConsumerGroupHeartbeatRequest.TopicPartitions> owned) {
        if (instanceId == null) {
            ConsumerGroupMember m = cg.members.get(memberId);
            if (m == null) {
                if (epoch != 0) throw new Refused(Errors.UNKNOWN_MEMBER_ID, "Member " + memberId + " is not a member of group " + group.groupId + ".");
                checkSize(cg);
                return new ConsumerGroupMember(memberId);
            }
            if (epoch == 0) return rejoin(group, cg, m);
            checkEpoch(m, epoch, owned);
            return m;
        }
        String currentId = cg.staticMembers.get(instanceId);
        ConsumerGroupMember current = currentId == null ? null : cg.members.get(currentId);
        if (epoch == 0) {
            if (current == null) {
                ConsumerGroupMember m = cg.members.get(memberId);
                if (m != null) return rejoin(group, cg, m);
                checkSize(cg);
                return new ConsumerGroupMember(memberId);
            }
            if (current.memberId.equals(memberId)) {
                if (!current.hasLeftStatically()) return rejoin(group, cg, current);
                // back under the same id after leaving with -2: it keeps what it held, nobody else moves
                current.memberEpoch = 0;
                current.previousMemberEpoch = 0;
                emit(ConsumerGroupRecords.currentAssignment(group, current));
                return current;
            }
            if (!current.hasLeftStatically()) {
                throw new Refused(Errors.UNRELEASED_INSTANCE_ID, "Static member " + currentId + " with instance id "
                        + instanceId + " is not released yet.");
            }
            // the new incarnation takes the old one's place, assignment and target included
            ConsumerGroupMember m = current.copyAs(memberId);
            Map<UUID, Set<Integer>> target = cg.targetOf(current.memberId);
            cancelTimers(group.groupId, current.memberId);
            cg.remove(current.memberId);
            cg.add(m);
            Map<String, Map<UUID, Set<Integer>>> moved = new LinkedHashMap<>(cg.target);
            moved.remove(current.memberId);
            moved.put(memberId, target);
            cg.target = moved;
            m.memberEpoch = 0;
            m.previousMemberEpoch = 0;
            ConsumerGroupRecords.memberTombstones(group, current.memberId, records);
            emit(ConsumerGroupRecords.member(group, m));
            emit(ConsumerGroupRecords.targetMember(group, memberId, target));
            emit(ConsumerGroupRecords.currentAssignment(group, m));
            LOG.info("Group {}: static member {} came back as member {}", LogSafe.escape(group.groupId),
                    LogSafe.escape(instanceId), LogSafe.escape(memberId));
            return m;
        }
        if (current == null) throw new Refused(Errors.UNKNOWN_MEMBER_ID, "Instance id " + instanceId + " is unknown.");
        if (!current.memberId.equals(memberId)) {
            throw new Refused(Errors.FENCED_INSTANCE_ID, "Static member " + memberId + " with instance id " + instanceId
                    + " was fenced by member " + currentId + ".");
        }
        checkEpoch(current, epoch, owned);
        return current;
    }

    private void checkSize(ConsumerGroup cg) {
        if (cg.members.size() >= config.maxSize()) {
            throw new Refused(Errors.GROUP_MAX_SIZE_REACHED, "The consumer group has reached its maximum capacity of "
                    + config.maxSize() + " members.");
        }
    }

    /** A known member joining again with epoch 0 (after it was fenced): it starts over, holding nothing. */
    private ConsumerGroupMember rejoin(ClassicGroup group, ConsumerGroup cg, ConsumerGroupMember m) {
        loop.cancel(rebalanceKey(group.groupId, m.memberId));
        cg.setAssignment(m, Map.of(), Map.of());
        m.heldSince = Map.of();
        m.state = ConsumerGroupMember.State.STABLE;
        m.memberEpoch = 0;
        m.previousMemberEpoch = 0;
        cg.groupEpoch++;
        emit(ConsumerGroupRecords.groupEpoch(group));
        emit(ConsumerGroupRecords.currentAssignment(group, m));
        return m;
    }

    private static void checkEpoch(ConsumerGroupMember m, int epoch, List<ConsumerGroupHeartbeatRequest.TopicPartitions> owned) {
        if (epoch > m.memberEpoch) {
            throw new Refused(Errors.FENCED_MEMBER_EPOCH, "The consumer group member has a greater member epoch (" + epoch
                    + ") than the one known by the group coordinator (" + m.memberEpoch + "). The member must abandon all its partitions and rejoin.");
        }
        if (epoch < m.memberEpoch
                && (epoch != m.previousMemberEpoch || !ConsumerReconciliation.isSubset(owned, m.assigned))) {
            throw new Refused(Errors.FENCED_MEMBER_EPOCH, "The consumer group member has a smaller member epoch (" + epoch
                    + ") than the one known by the group coordinator (" + m.memberEpoch + "). The member must abandon all its partitions and rejoin.");
        }
    }

    private void computeTarget(ClassicGroup group, ConsumerGroup cg) {
        Map<UUID, Integer> partitions = new LinkedHashMap<>();
        for (ConsumerGroupTopics.TopicInfo t : cg.subscribedTopics.values()) partitions.put(t.id(), t.partitions());
        List<ServerAssignors.Subscriber> subscribers = new ArrayList<>(cg.members.size());
        for (ConsumerGroupMember m : cg.members.values()) {
            subscribers.add(new ServerAssignors.Subscriber(m.memberId, m.instanceId, ConsumerGroup.subscribedIds(m, cg.subscribedTopics)));
        }
        String assignor = cg.preferredAssignor(config.defaultAssignor());
        Map<String, Map<UUID, Set<Integer>>> previous = cg.target;
        cg.target = ServerAssignors.assign(assignor, subscribers, partitions, previous);
        cg.assignmentEpoch = cg.groupEpoch;
        cg.target.forEach((memberId, parts) -> {
            if (!parts.equals(previous.get(memberId))) emit(ConsumerGroupRecords.targetMember(group, memberId, parts));
        });
        for (String gone : previous.keySet()) {
            if (!cg.target.containsKey(gone)) emit(ConsumerGroupRecords.tombstone(group, ConsumerGroupRecords.TARGET_MEMBER, gone));
        }
        emit(ConsumerGroupRecords.targetEpoch(group));
        LOG.debug("Group {}: target assignment of epoch {} computed with the {} assignor", LogSafe.escape(group.groupId),
                cg.assignmentEpoch, assignor);
    }

    // ------------------------------------------------------------------ leave

    private ConsumerGroupHeartbeatResponse leave(ConsumerGroupHeartbeatRequest r) {
        ClassicGroup group = groups.get(r.groupId());
        if (group == null || group.modern == null) {
            throw new Refused(Errors.GROUP_ID_NOT_FOUND, "Group " + r.groupId() + " is not a consumer group.");
        }
        ConsumerGroup cg = group.modern;
        ConsumerGroupMember member;
        if (r.instanceId() == null) {
            member = cg.members.get(r.memberId());
            if (member == null) throw new Refused(Errors.UNKNOWN_MEMBER_ID, "Member " + r.memberId() + " is not a member of group " + r.groupId() + ".");
        } else {
            String currentId = cg.staticMembers.get(r.instanceId());
            member = currentId == null ? null : cg.members.get(currentId);
            if (member == null) throw new Refused(Errors.UNKNOWN_MEMBER_ID, "Instance id " + r.instanceId() + " is unknown.");
            if (!currentId.equals(r.memberId())) {
                throw new Refused(Errors.FENCED_INSTANCE_ID, "Static member " + r.memberId() + " with instance id "
                        + r.instanceId() + " was fenced by member " + currentId + ".");
            }
        }
        if (r.memberEpoch() == ConsumerGroupMember.LEFT_STATIC_EPOCH) {
            // a static member that will be back: its partitions stay reserved until its session expires
            member.memberEpoch = ConsumerGroupMember.LEFT_STATIC_EPOCH;
            loop.cancel(rebalanceKey(group.groupId, member.memberId));
            emit(ConsumerGroupRecords.currentAssignment(group, member));
        } else {
            removeMember(group, member.memberId);
        }
        return new ConsumerGroupHeartbeatResponse().memberId(r.memberId()).memberEpoch(r.memberEpoch())
                .heartbeatIntervalMs(0);
    }

    /** Removes a member (left, expired or fenced) and starts a new group epoch. */
    private void removeMember(ClassicGroup group, String memberId) {
        ConsumerGroup cg = group.modern;
        cancelTimers(group.groupId, memberId);
        cg.remove(memberId);
        cg.groupEpoch++;
        cg.subscribedTopics = cg.resolveSubscriptions(topics, null);
        ConsumerGroupRecords.memberTombstones(group, memberId, records);
        emit(ConsumerGroupRecords.groupEpoch(group));
        if (cg.isEmpty()) {
            group.stateTimestamp = loop.now();
            // nothing to hand out any more: the (empty) target is current
            cg.target = Map.of();
            cg.assignmentEpoch = cg.groupEpoch;
            emit(ConsumerGroupRecords.targetEpoch(group));
        }
    }

    // ------------------------------------------------------------------ timers

    private static String sessionKey(String groupId, String memberId) {
        return "consumer-group-session\u0000" + groupId + "\u0000" + memberId;
    }

    private static String rebalanceKey(String groupId, String memberId) {
        return "consumer-group-revocation\u0000" + groupId + "\u0000" + memberId;
    }

    private void cancelTimers(String groupId, String memberId) {
        loop.cancel(sessionKey(groupId, memberId));
        loop.cancel(rebalanceKey(groupId, memberId));
    }

    private void scheduleSession(ClassicGroup group, String memberId) {
        ConsumerGroup cg = group.modern;
        int timeoutMs = config(group.groupId).sessionTimeoutMs();
        loop.schedule(sessionKey(group.groupId, memberId), timeoutMs, () -> {
            if (!groups.isCurrent(group) || group.modern != cg || !cg.members.containsKey(memberId)) return;
            LOG.info("Group {}: member {} sent no heartbeat for {} ms and is removed", LogSafe.escape(group.groupId),
                    LogSafe.escape(memberId), timeoutMs);
            removeOnTimer(group, memberId);
        });
    }

    /** Armed once per revocation: re-arming on every heartbeat would never let it fire. */
    private void scheduleRebalanceTimeout(ClassicGroup group, ConsumerGroupMember member) {
        String key = rebalanceKey(group.groupId, member.memberId);
        if (loop.deadline(key) >= 0) return;
        ConsumerGroup cg = group.modern;
        int epochAtStart = member.memberEpoch;
        loop.schedule(key, member.rebalanceTimeoutMs, () -> {
            if (!groups.isCurrent(group) || group.modern != cg) return;
            ConsumerGroupMember m = cg.members.get(member.memberId);
            if (m == null || m.state != ConsumerGroupMember.State.UNREVOKED_PARTITIONS || m.memberEpoch != epochAtStart) return;
            LOG.info("Group {}: member {} did not revoke its partitions within its rebalance timeout ({} ms) and is removed",
                    LogSafe.escape(group.groupId), LogSafe.escape(m.memberId), m.rebalanceTimeoutMs);
            removeOnTimer(group, m.memberId);
        });
    }

    /** A removal no request waits for: written without an answer (a failed write is logged; a restart replays what was written). */
    private void removeOnTimer(ClassicGroup group, String memberId) {
        records = new ArrayList<>();
        removeMember(group, memberId);
        flush().whenComplete((v, e) -> {
            if (e != null) LOG.warn("Group {}: the removal of member {} could not be written", LogSafe.escape(group.groupId),
                    LogSafe.escape(memberId), e);
        });
    }

    /**
     * After the load of a group's partition: its members are known from the log, so their
     * ownership is rebuilt, their session timers armed (each must heartbeat within the session
     * timeout from now, as after Kafka's load), and the subscribed topics resolved as they are now.
     */
    void loaded(ClassicGroup group) {
        ConsumerGroup cg = group.modern;
        cg.reload();
        cg.subscribedTopics = cg.resolveSubscriptions(topics, null);
        for (String memberId : cg.members.keySet()) scheduleSession(group, memberId);
    }

    /** The tombstones of a consumer group without members that stops being one (deleted, expired, or turned classic). */
    static List<CoordinatorRecord> tombstones(ClassicGroup group) {
        List<CoordinatorRecord> out = new ArrayList<>();
        ConsumerGroupRecords.groupTombstones(group, out);
        return out;
    }

    // ------------------------------------------------------------------ wire

    static ConsumerGroupHeartbeatResponse.Assignment assignment(Map<UUID, Set<Integer>> partitions) {
        List<ConsumerGroupHeartbeatResponse.TopicPartitions> topics = new ArrayList<>(partitions.size());
        partitions.forEach((topic, parts) -> topics.add(new ConsumerGroupHeartbeatResponse.TopicPartitions()
                .topicId(topic).partitions(new ArrayList<>(parts))));
        return new ConsumerGroupHeartbeatResponse.Assignment().topicPartitions(topics);
    }
}
