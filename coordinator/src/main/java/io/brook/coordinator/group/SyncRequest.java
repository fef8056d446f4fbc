package io.brook.coordinator.group;

import java.util.Map;

/**
 * A SyncGroup, decoded from its wire version; {@code assignments} (member id to bytes) is empty
 * unless the sender is the leader.
 */
record SyncRequest(String groupId, int generationId, String memberId, String groupInstanceId,
                   String protocolType, String protocolName, Map<String, byte[]> assignments, short version) {
}
