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
    /** The assignor the member asked for, or null for the broker's default. */
    String serverAssignor;
    int rebalanceTimeoutMs;
    int memberEpoch;
    int previousMemberEpoch;
    State state = State.STABLE;
    Map<UUID, Set<Integer>> assigned = Map.of();
    Map<UUID, Set<Integer>> pendingRevocation = Map.of();

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
        m.state = state;
        m.assigned = assigned;
        m.pendingRevocation = pendingRevocation;
        return m;
    }

    void updateEpoch(int epoch) {
        previousMemberEpoch = memberEpoch;
        memberEpoch = epoch;
    }

    boolean isReconciledTo(int targetEpoch) {
        return state == State.STABLE && memberEpoch == targetEpoch;
    }

    boolean hasLeftStatically() {
        return memberEpoch == LEFT_STATIC_EPOCH;
    }
}
