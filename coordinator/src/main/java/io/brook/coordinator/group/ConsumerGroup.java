package io.brook.coordinator.group;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import io.brook.wire.protocol.Errors;

/**
 * The membership of a consumer group of the KIP-848 protocol, held by its {@link ClassicGroup}
 * (which keeps the committed offsets, whatever the protocol). Owned by the coordinator thread.
 *
 * <p>Three epochs order what happens (as in Kafka): the <em>group epoch</em> grows whenever what
 * the assignment depends on changes (a member joins, leaves or changes its subscription, a
 * subscribed topic appears, disappears or gains partitions); the <em>assignment epoch</em> is the
 * group epoch the target assignment ({@link #target}) was computed for; each member's epoch reaches
 * the assignment epoch once it holds its part of the target. A partition belongs to at most one
 * member at a time ({@link #owners}): a member gets a partition of its target only after the
 * member that held it confirmed its revocation.
 */
final class ConsumerGroup {

    static final String PROTOCOL_TYPE = "consumer";

    int groupEpoch;
    int assignmentEpoch;
    final LinkedHashMap<String, ConsumerGroupMember> members = new LinkedHashMap<>();
    /** group.instance.id → member id of its current incarnation. */
    final Map<String, String> staticMembers = new HashMap<>();
    /** member id → the partitions the target assignment of {@link #assignmentEpoch} gives it. */
    Map<String, Map<UUID, Set<Integer>>> target = Map.of();
    /** topic id → partition → the member that holds it (assigned, or pending its revocation). */
    private final Map<UUID, Map<Integer, String>> owners = new HashMap<>();
    /** The subscribed topics as they were when the group epoch last changed, by name. */
    Map<String, ConsumerGroupTopics.TopicInfo> subscribedTopics = Map.of();

    boolean isEmpty() {
        return members.isEmpty();
    }

    /** The state as ListGroups and ConsumerGroupDescribe name it. */
    String stateLabel() {
        if (members.isEmpty()) return "Empty";
        if (groupEpoch != assignmentEpoch) return "Assigning";
        for (ConsumerGroupMember m : members.values()) {
            if (!m.isReconciledTo(assignmentEpoch)) return "Reconciling";
        }
        return "Stable";
    }

    /** The member holding a partition now, or null when nobody does. */
    String owner(UUID topicId, int partition) {
        Map<Integer, String> byPartition = owners.get(topicId);
        return byPartition == null ? null : byPartition.get(partition);
    }

    /** Sets what a member holds, keeping {@link #owners} in step. */
    void setAssignment(ConsumerGroupMember member, Map<UUID, Set<Integer>> assigned, Map<UUID, Set<Integer>> pending) {
        release(member);
        member.assigned = assigned;
        member.pendingRevocation = pending;
        own(member, assigned);
        own(member, pending);
    }

    private void own(ConsumerGroupMember member, Map<UUID, Set<Integer>> partitions) {
        partitions.forEach((topic, parts) -> {
            Map<Integer, String> byPartition = owners.computeIfAbsent(topic, t -> new HashMap<>());
            for (int p : parts) byPartition.put(p, member.memberId);
        });
    }

    private void release(ConsumerGroupMember member) {
        releaseAll(member.memberId, member.assigned);
        releaseAll(member.memberId, member.pendingRevocation);
    }

    private void releaseAll(String memberId, Map<UUID, Set<Integer>> partitions) {
        partitions.forEach((topic, parts) -> {
            Map<Integer, String> byPartition = owners.get(topic);
            if (byPartition == null) return;
            for (int p : parts) byPartition.remove(p, memberId);
            if (byPartition.isEmpty()) owners.remove(topic);
        });
    }

    void add(ConsumerGroupMember member) {
        members.put(member.memberId, member);
        if (member.instanceId != null) staticMembers.put(member.instanceId, member.memberId);
        own(member, member.assigned);
        own(member, member.pendingRevocation);
    }

    /** Rebuilds the static members and who holds what from {@link #members}, as a replay left them. */
    void reload() {
        List<ConsumerGroupMember> all = List.copyOf(members.values());
        members.clear();
        staticMembers.clear();
        owners.clear();
        for (ConsumerGroupMember m : all) add(m);
    }

    /** Removes a member and frees what it held; its share of the target stays until the next one is computed. */
    void remove(String memberId) {
        ConsumerGroupMember m = members.remove(memberId);
        if (m == null) return;
        release(m);
        if (m.instanceId != null && memberId.equals(staticMembers.get(m.instanceId))) staticMembers.remove(m.instanceId);
    }

    /** The target of a member ({@link #target}), empty when it has none. */
    Map<UUID, Set<Integer>> targetOf(String memberId) {
        return target.getOrDefault(memberId, Map.of());
    }

    /**
     * The topics the members subscribe to now, by name or by pattern, as they exist in
     * {@code topics}; {@code extra} is a member whose subscription counts although it is not
     * (yet) in {@link #members}, or null.
     */
    Map<String, ConsumerGroupTopics.TopicInfo> resolveSubscriptions(ConsumerGroupTopics topics, ConsumerGroupMember extra) {
        Set<String> names = new TreeSet<>();
        List<ConsumerGroupMember> all = new ArrayList<>(members.values());
        if (extra != null) all.add(extra);
        // each pattern is matched once against every topic, then what a member may see of it is kept
        Map<String, List<String>> matches = new HashMap<>();
        Collection<String> existing = null;
        for (ConsumerGroupMember m : all) {
            names.addAll(m.subscribedTopicNames);
            if (m.subscribedTopicRegex == null || m.subscribedTopicRegex.isEmpty()) continue;
            if (existing == null) existing = topics.names();
            Collection<String> candidates = existing;
            List<String> matched = matches.computeIfAbsent(m.subscribedTopicRegex, regex -> match(regex, candidates));
            for (String name : matched) {
                if (m.mayDescribe == null || m.mayDescribe.test(name)) names.add(name);
            }
        }
        Map<String, ConsumerGroupTopics.TopicInfo> out = new TreeMap<>();
        for (String name : names) {
            ConsumerGroupTopics.TopicInfo t = topics.byName(name);
            if (t != null) out.put(name, t);
        }
        return out;
    }

    private static List<String> match(String regex, Collection<String> names) {
        Pattern p = compile(regex);
        List<String> out = new ArrayList<>();
        if (p == null) return out;
        for (String name : names) {
            if (p.matcher(name).matches()) out.add(name);
        }
        return out;
    }

    /** The topics a member subscribes to among {@code existing} (the group's resolved subscriptions). */
    static Set<UUID> subscribedIds(ConsumerGroupMember m, Map<String, ConsumerGroupTopics.TopicInfo> existing) {
        Set<UUID> out = new TreeSet<>();
        for (String name : m.subscribedTopicNames) {
            ConsumerGroupTopics.TopicInfo t = existing.get(name);
            if (t != null) out.add(t.id());
        }
        Pattern p = m.subscribedTopicRegex == null || m.subscribedTopicRegex.isEmpty() ? null : compile(m.subscribedTopicRegex);
        if (p != null) {
            for (ConsumerGroupTopics.TopicInfo t : existing.values()) {
                if (p.matcher(t.name()).matches() && (m.mayDescribe == null || m.mayDescribe.test(t.name()))) out.add(t.id());
            }
        }
        return out;
    }

    /**
     * A subscription pattern, or null when it does not compile (checked when the member sends it).
     * RE2 syntax, as Kafka's: and RE2 matches in time linear in the name, so no pattern a client
     * sends can make the coordinator backtrack without end.
     */
    static Pattern compile(String regex) {
        try {
            return Pattern.compile(regex);
        } catch (PatternSyntaxException e) {
            return null;
        }
    }

    /** The names of every topic some member subscribes to now (offsets of these do not expire). */
    Set<String> subscribedTopicNames() {
        return subscribedTopics.keySet();
    }

    /**
     * The assignor to use: the one most members asked for (ties to the first in name order), else
     * {@code defaultAssignor}.
     */
    String preferredAssignor(String defaultAssignor) {
        Map<String, Integer> votes = new TreeMap<>();
        for (ConsumerGroupMember m : members.values()) {
            if (m.serverAssignor != null) votes.merge(m.serverAssignor, 1, Integer::sum);
        }
        String best = defaultAssignor;
        int most = 0;
        for (Map.Entry<String, Integer> e : votes.entrySet()) {
            if (e.getValue() > most) {
                best = e.getKey();
                most = e.getValue();
            }
        }
        return best;
    }

    /**
     * Kafka's checks of an OffsetCommit (or, {@code transactional}, a TxnOffsetCommit) against
     * this group: anyone may commit while it has no members, a member with its current epoch, or
     * with an older one for partitions it has held since that epoch (KIP-1251: the epoch moved on
     * while the commit was on its way, and the client did not know yet).
     */
    Errors validateCommit(int memberEpoch, String memberId, short version, boolean transactional,
                          List<CommitPartition> partitions) {
        if (memberEpoch < 0 && members.isEmpty()) return Errors.NONE;
        if (transactional && memberEpoch < 0 && (memberId == null || memberId.isEmpty())) return Errors.NONE;
        ConsumerGroupMember m = memberId == null ? null : members.get(memberId);
        if (m == null) return Errors.UNKNOWN_MEMBER_ID;
        if (!transactional && version < 9) return Errors.UNSUPPORTED_VERSION;
        if (memberEpoch == m.memberEpoch) return Errors.NONE;
        Errors stale = transactional ? Errors.ILLEGAL_GENERATION : Errors.STALE_MEMBER_EPOCH;
        if (memberEpoch > m.memberEpoch || memberEpoch < 0) return stale;
        for (CommitPartition p : partitions) {
            ConsumerGroupTopics.TopicInfo t = subscribedTopics.get(p.topic());
            Integer since = t == null ? null : m.heldSince(t.id(), p.partition());
            if (since == null || since > memberEpoch) return stale;
        }
        return Errors.NONE;
    }

    /** Kafka's check of an OffsetFetch (v9+) that names a member: it must be one, at its current epoch. */
    Errors validateFetch(String memberId, int memberEpoch) {
        if (memberId == null && memberEpoch < 0) return Errors.NONE;
        ConsumerGroupMember m = memberId == null ? null : members.get(memberId);
        if (m == null) return Errors.UNKNOWN_MEMBER_ID;
        return memberEpoch == m.memberEpoch ? Errors.NONE : Errors.STALE_MEMBER_EPOCH;
    }

    /** Members in a stable order for descriptions. */
    List<ConsumerGroupMember> memberList() {
        return List.copyOf(members.values());
    }
}
