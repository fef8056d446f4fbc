package io.brook.coordinator.group;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.wire.protocol.LogSafe;

/**
 * The state of one group: membership (classic protocol, or the KIP-848 consumer protocol when
 * {@link #modern} is set) and committed offsets. A group that only
 * ever received standalone commits (generation -1) is a "simple" group: Empty, no protocol type.
 * Owned by the coordinator's owner thread; {@link ClassicMembership}, {@link Rebalance},
 * {@link GroupOffsets} and {@link GroupAdmin} hold the rules that change it, {@link GroupState}
 * draws its states.
 */
final class ClassicGroup {
    final String groupId;
    final int partition;
    GroupState state = GroupState.EMPTY;
    long stateTimestamp;
    int generation;
    /** Null until the first member joins; kept when the group becomes Empty again. */
    String protocolType;
    String protocolName;
    String leaderId;
    final LinkedHashMap<String, GroupMember> members = new LinkedHashMap<>();
    /** group.instance.id → member id of the current incarnation. */
    final Map<String, String> staticMembers = new HashMap<>();
    /** Member ids handed out with MEMBER_ID_REQUIRED that have not joined with them yet. */
    final Set<String> pendingMembers = new LinkedHashSet<>();
    /** How many members are parked in JoinGroup, kept so that a join does not walk the members. */
    private int awaitingJoinCount;
    /**
     * Protocol name → how many members offer it, kept so that a join checks its protocols against
     * the group without walking the members.
     */
    private final Map<String, Integer> protocolSupport = new HashMap<>();
    /** Members of the current generation that have not sent SyncGroup yet. */
    final Set<String> pendingSyncMembers = new HashSet<>();
    /** A member joined during the initial rebalance delay, so the delay is extended. */
    boolean newMemberAdded;
    /** The join phase currently waits for the initial rebalance delay (no early completion). */
    boolean initialDelayActive;
    /** topic → partition → committed offset. */
    final TreeMap<String, TreeMap<Integer, CoordinatorRecords.OffsetValue>> offsets = new TreeMap<>();
    /** topic → partitions with a transactional offset commit not yet completed (require_stable). */
    final Map<String, Set<Integer>> pendingTransactionalOffsets = new HashMap<>();
    /** The offsets of transactions not ended yet, which fill {@link #pendingTransactionalOffsets}. */
    final PendingTxnOffsets txnOffsets = new PendingTxnOffsets(pendingTransactionalOffsets);
    /**
     * The membership of a KIP-848 consumer group, or null for a classic group. While set, the classic
     * state stays Empty (no classic member can join a consumer group that has members).
     */
    ConsumerGroup modern;

    ClassicGroup(String groupId, int partition, long now) {
        this.groupId = groupId;
        this.partition = partition;
        this.stateTimestamp = now;
    }

    void transitionTo(GroupState target, long now) {
        if (!target.canFollow(state)) {
            throw new IllegalStateException("group " + LogSafe.escape(groupId) + ": illegal transition " + state + " -> " + target);
        }
        state = target;
        stateTimestamp = now;
    }

    boolean is(GroupState s) {
        return state == s;
    }

    /** No member of either protocol, and nobody about to join. */
    boolean hasNoMembers() {
        return state == GroupState.EMPTY && (modern == null || modern.isEmpty());
    }

    boolean hasMember(String memberId) {
        return members.containsKey(memberId);
    }

    boolean isLeader(String memberId) {
        return memberId.equals(leaderId);
    }

    void add(GroupMember member) {
        load(member);
        if (leaderId == null) leaderId = member.memberId;
    }

    /** Adds a member as replay finds it (the leader comes from the record). */
    void load(GroupMember member) {
        members.put(member.memberId, member);
        if (member.instanceId != null) staticMembers.put(member.instanceId, member.memberId);
        countProtocols(member, 1);
        if (member.awaitingJoin != null) awaitingJoinCount++;
    }

    /** Forgets every member (replay replaces them with a record's). */
    void clearMembers() {
        members.clear();
        staticMembers.clear();
        protocolSupport.clear();
        awaitingJoinCount = 0;
    }

    void remove(String memberId) {
        GroupMember m = members.remove(memberId);
        if (m == null) return;
        countProtocols(m, -1);
        if (m.awaitingJoin != null) awaitingJoinCount--;
        if (m.instanceId != null && memberId.equals(staticMembers.get(m.instanceId))) staticMembers.remove(m.instanceId);
        pendingSyncMembers.remove(memberId);
        if (memberId.equals(leaderId)) {
            leaderId = members.isEmpty() ? null : members.keySet().iterator().next();
        }
    }

    /** Re-keys a static member under its new incarnation's id. */
    void replaceStaticMember(String oldId, String newId) {
        GroupMember m = members.remove(oldId);
        m.memberId = newId;
        members.put(newId, m);
        staticMembers.put(m.instanceId, newId);
        if (oldId.equals(leaderId)) leaderId = newId;
        if (pendingSyncMembers.remove(oldId)) pendingSyncMembers.add(newId);
    }

    /** Parks a JoinGroup of a member of this group until the join phase completes. */
    void parkJoin(GroupMember member, CompletableFuture<JoinResult> future) {
        if (member.awaitingJoin == null && members.get(member.memberId) == member) awaitingJoinCount++;
        member.awaitingJoin = future;
    }

    /** The member's parked JoinGroup, now no longer parked; null when there was none. */
    CompletableFuture<JoinResult> unparkJoin(GroupMember member) {
        CompletableFuture<JoinResult> f = member.awaitingJoin;
        if (f != null && members.get(member.memberId) == member) awaitingJoinCount--;
        member.awaitingJoin = null;
        return f;
    }

    /** Replaces the protocols a member offers. */
    void setProtocols(GroupMember member, List<Protocol> protocols) {
        boolean isMember = members.get(member.memberId) == member;
        if (isMember) countProtocols(member, -1);
        member.protocols = protocols;
        if (isMember) countProtocols(member, 1);
    }

    private void countProtocols(GroupMember member, int delta) {
        Set<String> names = new HashSet<>();
        for (Protocol p : member.protocols) {
            if (names.add(p.name())) {
                protocolSupport.merge(p.name(), delta, (a, b) -> a + b == 0 ? null : a + b);
            }
        }
    }

    int numAwaitingJoin() {
        return awaitingJoinCount;
    }

    boolean allMembersJoined() {
        return pendingMembers.isEmpty() && awaitingJoinCount == members.size();
    }

    int rebalanceTimeoutMs() {
        int t = 0;
        for (GroupMember m : members.values()) t = Math.max(t, m.rebalanceTimeoutMs);
        return t;
    }

    /**
     * Whether a member offering these protocols may join: an Empty group takes any non-empty type
     * and list; otherwise the type must match and one offered protocol must be supported by every
     * current member.
     */
    boolean supportsProtocols(String type, List<Protocol> offered) {
        if (type == null || type.isEmpty() || offered.isEmpty()) return false;
        if (members.isEmpty()) return true;
        if (!type.equals(protocolType)) return false;
        for (Protocol p : offered) {
            if (protocolSupport.getOrDefault(p.name(), 0) == members.size()) return true;
        }
        return false;
    }

    /**
     * The protocol for the next generation: among the protocols every member supports, each member
     * votes for the first one in its own preference order; most votes wins, ties go to the
     * candidate listed first by the first member. Null when there is no common protocol.
     */
    String selectProtocol() {
        if (members.isEmpty()) return null;
        List<String> candidates = new ArrayList<>();
        GroupMember first = members.values().iterator().next();
        for (Protocol p : first.protocols) {
            boolean all = true;
            for (GroupMember m : members.values()) {
                if (!m.supports(p.name())) {
                    all = false;
                    break;
                }
            }
            if (all && !candidates.contains(p.name())) candidates.add(p.name());
        }
        if (candidates.isEmpty()) return null;
        Map<String, Integer> votes = new HashMap<>();
        for (GroupMember m : members.values()) {
            for (Protocol p : m.protocols) {
                if (candidates.contains(p.name())) {
                    votes.merge(p.name(), 1, Integer::sum);
                    break;
                }
            }
        }
        String best = null;
        int bestVotes = -1;
        for (String c : candidates) {
            int v = votes.getOrDefault(c, 0);
            if (v > bestVotes) {
                best = c;
                bestVotes = v;
            }
        }
        return best;
    }

    boolean hasOffsets() {
        return !offsets.isEmpty();
    }

    int offsetCount() {
        int n = 0;
        for (TreeMap<Integer, CoordinatorRecords.OffsetValue> p : offsets.values()) n += p.size();
        return n;
    }

    /** The committed offset of a partition, or null. */
    CoordinatorRecords.OffsetValue offset(String topic, int partition) {
        TreeMap<Integer, CoordinatorRecords.OffsetValue> parts = offsets.get(topic);
        return parts == null ? null : parts.get(partition);
    }

    /** A committed offset from a plain offset record (the latest record of the group so far). */
    void putOffset(String topic, int partition, CoordinatorRecords.OffsetValue value) {
        putOffset(topic, partition, value, txnOffsets.nextOrder());
    }

    /** A committed offset from the record of {@code order} (see {@link PendingTxnOffsets}). */
    void putOffset(String topic, int partition, CoordinatorRecords.OffsetValue value, long order) {
        offsets.computeIfAbsent(topic, t -> new TreeMap<>()).put(partition, value);
        txnOffsets.committed(topic, partition, order);
    }

    /** An offset tombstone: the committed offset and any pending transactional one go. */
    void removeOffset(String topic, int partition) {
        TreeMap<Integer, CoordinatorRecords.OffsetValue> parts = offsets.get(topic);
        if (parts != null && parts.remove(partition) != null && parts.isEmpty()) offsets.remove(topic);
        txnOffsets.removed(topic, partition);
    }

    /**
     * Union of the topics in the members' subscriptions for the selected protocol (the first one a
     * member offers while none is selected); null if any subscription is unreadable.
     */
    Set<String> subscribedTopics() {
        Set<String> all = new HashSet<>();
        for (GroupMember m : members.values()) {
            String protocol = protocolName != null ? protocolName
                    : (m.protocols.isEmpty() ? null : m.protocols.get(0).name());
            Set<String> topics = protocol == null ? null : ConsumerSubscription.topics(m.metadataFor(protocol));
            if (topics == null) return null;
            all.addAll(topics);
        }
        return all;
    }

    boolean isPendingTransactional(String topic, int partition) {
        Set<Integer> s = pendingTransactionalOffsets.get(topic);
        return s != null && s.contains(partition);
    }

    /**
     * The group metadata record of the current state, with the given assignments (member id →
     * bytes), or the members' own when null.
     */
    CoordinatorRecord metadataRecord(Map<String, byte[]> assignments) {
        return new CoordinatorRecord(partition, CoordinatorRecords.groupKey(groupId),
                CoordinatorRecords.groupValue(toRecord(assignments)));
    }

    /** The tombstone that deletes this group's metadata record. */
    CoordinatorRecord metadataTombstone() {
        return new CoordinatorRecord(partition, CoordinatorRecords.groupKey(groupId), null);
    }

    /** The tombstone that deletes one committed offset of this group. */
    CoordinatorRecord offsetTombstone(String topic, int partition) {
        return new CoordinatorRecord(this.partition, CoordinatorRecords.offsetKey(groupId, topic, partition), null);
    }

    private CoordinatorRecords.GroupValue toRecord(Map<String, byte[]> assignments) {
        List<CoordinatorRecords.MemberValue> list = new ArrayList<>(members.size());
        for (GroupMember m : members.values()) {
            byte[] a = assignments == null ? m.assignment : assignments.getOrDefault(m.memberId, GroupMember.EMPTY_BYTES);
            list.add(new CoordinatorRecords.MemberValue(m.memberId, m.instanceId, m.clientId, m.clientHost,
                    m.rebalanceTimeoutMs, m.sessionTimeoutMs, m.protocols, a));
        }
        return new CoordinatorRecords.GroupValue(protocolType, generation, protocolName, leaderId, stateTimestamp, list);
    }
}
