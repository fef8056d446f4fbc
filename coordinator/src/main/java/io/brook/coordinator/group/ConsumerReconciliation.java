package io.brook.coordinator.group;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

import io.brook.wire.message.ConsumerGroupHeartbeatRequest;

/**
 * Moves one member of a KIP-848 consumer group towards its part of the group's target assignment,
 * one safe step per heartbeat (KIP-848's reconciliation, as Kafka does it):
 * <ol>
 *   <li>partitions the member holds but the target no longer gives it are revoked first: the member
 *       keeps its epoch and only what it may keep, in state UNREVOKED_PARTITIONS, until a heartbeat
 *       reports that it no longer owns them;</li>
 *   <li>then it moves to the target epoch and gets the partitions of its target that nobody else
 *       holds; those still held elsewhere follow on a later heartbeat, once released (state
 *       UNRELEASED_PARTITIONS).</li>
 * </ol>
 * So a partition is never assigned to two members at once. Coordinator thread only.
 */
final class ConsumerReconciliation {

    private ConsumerReconciliation() {
    }

    /**
     * Reconciles {@code member} with the target of epoch {@code targetEpoch}.
     *
     * @param owned the partitions the member reported owning in this heartbeat, or null when it did
     *              not say (unchanged since its last report, or never reported)
     * @return whether the member's assigned partitions changed
     */
    static boolean reconcile(ConsumerGroup group, ConsumerGroupMember member, int targetEpoch,
                             List<ConsumerGroupHeartbeatRequest.TopicPartitions> owned) {
        Map<UUID, Set<Integer>> before = member.assigned;
        switch (member.state) {
            case STABLE -> {
                if (member.memberEpoch != targetEpoch) next(group, member, member.memberEpoch, targetEpoch, owned);
            }
            case UNREVOKED_PARTITIONS -> {
                if (!ownsAny(owned, member.pendingRevocation)) next(group, member, member.memberEpoch + 1, targetEpoch, owned);
            }
            case UNRELEASED_PARTITIONS -> next(group, member, member.memberEpoch, targetEpoch, owned);
            default -> throw new IllegalStateException("state " + member.state);
        }
        return !before.equals(member.assigned);
    }

    private static void next(ConsumerGroup group, ConsumerGroupMember member, int epochWhileRevoking, int targetEpoch,
                             List<ConsumerGroupHeartbeatRequest.TopicPartitions> owned) {
        Map<UUID, Set<Integer>> target = group.targetOf(member.memberId);
        Map<UUID, Set<Integer>> assigned = new TreeMap<>();
        Map<UUID, Set<Integer>> revoke = new TreeMap<>();
        Map<UUID, Set<Integer>> toAssign = new TreeMap<>();
        boolean unreleased = false;
        Set<UUID> topics = new HashSet<>(target.keySet());
        topics.addAll(member.assigned.keySet());
        for (UUID topic : topics) {
            Set<Integer> want = target.getOrDefault(topic, Set.of());
            Set<Integer> have = member.assigned.getOrDefault(topic, Set.of());
            Set<Integer> keep = new TreeSet<>(have);
            keep.retainAll(want);
            Set<Integer> give = new TreeSet<>(have);
            give.removeAll(keep);
            Set<Integer> take = new TreeSet<>(want);
            take.removeAll(keep);
            // a partition still held by any member (this one's pending revocations included) waits
            unreleased |= take.removeIf(p -> group.owner(topic, p) != null);
            if (!keep.isEmpty()) assigned.put(topic, keep);
            if (!give.isEmpty()) revoke.put(topic, give);
            if (!take.isEmpty()) toAssign.put(topic, take);
        }
        if (!revoke.isEmpty() && ownsAny(owned, revoke)) {
            Map<UUID, Map<Integer, Integer>> since = heldSince(member, assigned, revoke, Map.of(), 0);
            member.state = ConsumerGroupMember.State.UNREVOKED_PARTITIONS;
            if (member.memberEpoch != epochWhileRevoking) member.updateEpoch(epochWhileRevoking);
            group.setAssignment(member, assigned, revoke);
            member.heldSince = since;
            return;
        }
        Map<UUID, Map<Integer, Integer>> since = heldSince(member, assigned, Map.of(), toAssign, targetEpoch);
        toAssign.forEach((topic, parts) -> assigned.computeIfAbsent(topic, t -> new TreeSet<>()).addAll(parts));
        member.state = unreleased ? ConsumerGroupMember.State.UNRELEASED_PARTITIONS : ConsumerGroupMember.State.STABLE;
        if (member.memberEpoch != targetEpoch) member.updateEpoch(targetEpoch);
        group.setAssignment(member, assigned, Map.of());
        member.heldSince = since;
    }

    /**
     * Since when the member holds each partition after this step: what it keeps (and still has to
     * revoke) since it got it, what it gets since {@code newEpoch}.
     */
    private static Map<UUID, Map<Integer, Integer>> heldSince(ConsumerGroupMember member, Map<UUID, Set<Integer>> kept,
                                                               Map<UUID, Set<Integer>> revoking, Map<UUID, Set<Integer>> got,
                                                               int newEpoch) {
        Map<UUID, Map<Integer, Integer>> out = new TreeMap<>();
        for (Map<UUID, Set<Integer>> old : List.of(kept, revoking)) {
            old.forEach((topic, parts) -> {
                for (int p : parts) {
                    Integer since = member.heldSince(topic, p);
                    out.computeIfAbsent(topic, t -> new TreeMap<>()).put(p, since == null ? member.memberEpoch : since);
                }
            });
        }
        got.forEach((topic, parts) -> {
            for (int p : parts) out.computeIfAbsent(topic, t -> new TreeMap<>()).put(p, newEpoch);
        });
        return out;
    }

    /** Whether the reported partitions include any of {@code partitions}; not knowing counts as yes. */
    private static boolean ownsAny(List<ConsumerGroupHeartbeatRequest.TopicPartitions> owned, Map<UUID, Set<Integer>> partitions) {
        if (owned == null) return true;
        for (ConsumerGroupHeartbeatRequest.TopicPartitions tp : owned) {
            Set<Integer> parts = partitions.get(tp.topicId());
            if (parts == null) continue;
            for (int p : tp.partitions()) {
                if (parts.contains(p)) return true;
            }
        }
        return false;
    }

    /** Whether every reported partition is among {@code partitions} (a member one epoch behind may be). */
    static boolean isSubset(List<ConsumerGroupHeartbeatRequest.TopicPartitions> owned, Map<UUID, Set<Integer>> partitions) {
        if (owned == null) return false;
        for (ConsumerGroupHeartbeatRequest.TopicPartitions tp : owned) {
            Set<Integer> parts = partitions.get(tp.topicId());
            if (parts == null) {
                if (!tp.partitions().isEmpty()) return false;
                continue;
            }
            for (int p : tp.partitions()) {
                if (!parts.contains(p)) return false;
            }
        }
        return true;
    }
}
