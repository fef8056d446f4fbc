package io.brook.coordinator.group;

/** One member in the JoinGroup answer to the leader, with its metadata for the selected protocol. */
record JoinedMember(String memberId, String groupInstanceId, byte[] metadata) {
}
