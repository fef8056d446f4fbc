package io.brook.coordinator.group;

/** One member in a DescribeGroups answer; metadata and assignment are empty unless the group is Stable. */
record DescribedMember(String memberId, String groupInstanceId, String clientId, String clientHost,
                       byte[] metadata, byte[] assignment) {
}
