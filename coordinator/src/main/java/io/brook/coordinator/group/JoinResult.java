package io.brook.coordinator.group;

import java.util.List;

import io.brook.wire.protocol.Errors;

/**
 * The answer to a JoinGroup: the generation the member joined, or an error. {@code members} is
 * filled for the leader only.
 */
record JoinResult(Errors error, int generationId, String protocolType, String protocolName,
                  String leader, boolean skipAssignment, String memberId, List<JoinedMember> members) {
    static JoinResult error(Errors e, String memberId) {
        return new JoinResult(e, -1, null, null, "", false, memberId, List.of());
    }
}
