package io.brook.coordinator.group;

import java.util.List;

/**
 * A JoinGroup, decoded from its wire version: {@code groupInstanceId} is null before v5 and for
 * dynamic members, {@code memberId} empty on a first join, {@code rebalanceTimeoutMs} the session
 * timeout for v0.
 */
record JoinRequest(String groupId, String memberId, String groupInstanceId, String protocolType,
                   List<Protocol> protocols, int sessionTimeoutMs, int rebalanceTimeoutMs,
                   String clientId, String clientHost, short version) {
}
