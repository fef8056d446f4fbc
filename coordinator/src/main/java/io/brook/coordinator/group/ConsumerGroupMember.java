package io.brook.coordinator.group;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * One member of a consumer group of the KIP-848 protocol: what it said about itself (the fields of
 * ConsumerGroupHeartbeat, which a client sends only when they change) and where its reconciliation
 * stands. Owned by the coordinator thread.
 *
 * <p>{@link #assigned} are the partitions the member may consume now; {@link #pendingRevocation}
 * those it was asked to give up and still owns (state {@link State#UNREVOKED_PARTITIONS}). Both count
 * as owned by this member, so that no other member gets them meanwhile.
 */
final class ConsumerGroupMember {

    /** Where a member stands against the group's target assignment. */
    enum State {
        /** Holds exactly what the target of its epoch gives it. */
        STABLE,
        /** Was asked to revoke partitions and has not confirmed it yet; keeps its epoch meanwhile. */
        UNREVOKED_PARTITIONS,
        /** At the target epoch, waiting for partitions other members still own. */
        UNRELEASED_PARTITIONS
    }

    /** Epoch of a static member that left and may come back under a new member id (KIP-848's -2). */
    static final int LEFT_STATIC_EPOCH = -2;

    final String memberId;
    String instanceId;
    String rackId;
    String clientId = "";
    String clientHost = "";
    List<String> subscribedTopicNames = List.of();
    /** The regular expression of a KIP-848 pattern subscription, or null. */
    String subscribedTopicRegex;
    /**
     * Which topics the member's principal may describe, as of its latest heartbeat: a pattern
     * subscription covers only those (as in Kafka). Null when every topic is allowed (no
     * authorizer, or a member loaded at start-up that has not heartbeated since). Not written.
     */
    java.util.function.Predicate<String> mayDescribe;
    /** The assignor the member asked for, or null for the broker's default. */
    String serverAssignor;
    int rebalanceTimeoutMs;
    int memberEpoch;
    int previousMemberEpoch;
    State state = State.STABLE;
    Map<UUID, Set<Integer>> assigned = Map.of();
    Map<UUID, Set<Integer>> pendingRevocation = Map.of();
    /**
     * topic → partition → the member epoch at which the member got it, for what it holds (assigned
     * or pending revocation); a partition missing here (as after a restart: these are not written)
     * counts as got at the member's current epoch.
     */
    Map<UUID, Map<Integer, Integer>> heldSince = Map.of();

    ConsumerGroupMember(String memberId) {
        this.memberId = memberId;
    }

    /** A copy under another member id: a static member's new incarnation takes over the old one's place. */
    ConsumerGroupMember copyAs(String newMemberId) {
        ConsumerGroupMember m = new ConsumerGroupMember(newMemberId);
        m.instanceId = instanceId;
        m.rackId = rackId;
        m.clientId = clientId;
        m.clientHost = clientHost;
        m.subscribedTopicNames = subscribedTopicNames;
        m.subscribedTopicRegex = subscribedTopicRegex;
        m.serverAssignor = serverAssignor;
        m.rebalanceTimeoutMs = rebalanceTimeoutMs;
        m.mayDescribe = mayDescribe;
        m.state = state;
        m.assigned = assigned;
        m.pendingRevocation = pendingRevocation;
        m.heldSince = heldSince;
        return m;
    }

    void updateEpoch(int epoch) {
        previousMemberEpoch = memberEpoch;
        memberEpoch = epoch;
    }

    /** The epoch since which the member holds a partition, or null when it does not hold it. */
    Integer heldSince(UUID topic, int partition) {
        boolean holds = assigned.getOrDefault(topic, Set.of()).contains(partition)
                || pendingRevocation.getOrDefault(topic, Set.of()).contains(partition);
        if (!holds) return null;
        Integer since = heldSince.getOrDefault(topic, Map.of()).get(partition);
        return since == null ? memberEpoch : since;
    }

    boolean isReconciledTo(int targetEpoch) {
        return state == State.STABLE && memberEpoch == targetEpoch;
    }

    boolean hasLeftStatically() {
        return memberEpoch == LEFT_STATIC_EPOCH;
    }
}
