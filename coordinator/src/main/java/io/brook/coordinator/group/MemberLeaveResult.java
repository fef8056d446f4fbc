package io.brook.coordinator.group;

import io.brook.wire.protocol.Errors;

/** What became of one member of a LeaveGroup. */
record MemberLeaveResult(String memberId, String groupInstanceId, Errors error) {
}
