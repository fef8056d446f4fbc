package io.brook.coordinator.group;

/** One group in a ListGroups answer, {@code state} as the wire label. */
record ListedGroup(String groupId, String protocolType, String state, String type) {
}
