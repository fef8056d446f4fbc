package io.brook.coordinator.group;

/** One member named in a LeaveGroup (a batch from v3); {@code groupInstanceId} null for a dynamic member. */
record LeavingMember(String memberId, String groupInstanceId) {
}
