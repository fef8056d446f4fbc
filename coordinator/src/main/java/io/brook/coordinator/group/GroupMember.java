package io.brook.coordinator.group;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One member of a classic group. Owned by the coordinator thread; never shared outside it.
 * The member id changes only when a static member is replaced by a new incarnation.
 */
final class GroupMember {
    static final byte[] EMPTY_BYTES = new byte[0];

    String memberId;
    final String instanceId;
    String clientId;
    String clientHost;
    int rebalanceTimeoutMs;
    int sessionTimeoutMs;
    List<Protocol> protocols;
    byte[] assignment = EMPTY_BYTES;
    /** Set while a JoinGroup of this member is parked until the join phase completes. */
    CompletableFuture<JoinResult> awaitingJoin;
    /** Set while a SyncGroup of this member is parked until the leader's assignment is durable. */
    CompletableFuture<SyncResult> awaitingSync;
    /** True from the first join until the join phase it joined completes (new-member join timeout). */
    boolean isNew;

    GroupMember(String memberId, String instanceId, String clientId, String clientHost,
                int rebalanceTimeoutMs, int sessionTimeoutMs, List<Protocol> protocols) {
        this.memberId = memberId;
        this.instanceId = instanceId;
        this.clientId = clientId;
        this.clientHost = clientHost;
        this.rebalanceTimeoutMs = rebalanceTimeoutMs;
        this.sessionTimeoutMs = sessionTimeoutMs;
        this.protocols = protocols;
    }

    boolean isStatic() {
        return instanceId != null;
    }

    /** The metadata this member gave for {@code protocolName}, or null when it does not offer it. */
    byte[] metadataFor(String protocolName) {
        for (Protocol p : protocols) {
            if (p.name().equals(protocolName)) return p.metadata();
        }
        return null;
    }

    boolean supports(String protocolName) {
        return metadataFor(protocolName) != null;
    }

    /** Same protocols, same order, same metadata bytes. */
    boolean matches(List<Protocol> other) {
        if (other.size() != protocols.size()) return false;
        for (int i = 0; i < other.size(); i++) {
            Protocol a = protocols.get(i);
            Protocol b = other.get(i);
            if (!a.name().equals(b.name()) || !Arrays.equals(a.metadata(), b.metadata())) return false;
        }
        return true;
    }
}
