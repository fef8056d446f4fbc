package io.brook.coordinator.group;

import java.util.List;

import io.brook.wire.protocol.Errors;

/** The answer to a LeaveGroup: a group-level error, and one result per member in request order. */
record LeaveResult(Errors error, List<MemberLeaveResult> members) {
}
