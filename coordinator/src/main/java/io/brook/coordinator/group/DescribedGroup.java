package io.brook.coordinator.group;

import java.util.List;

import io.brook.wire.protocol.Errors;

/** One group in a DescribeGroups answer, {@code state} as the wire label. */
record DescribedGroup(Errors error, String errorMessage, String groupId, String state, String protocolType,
                      String protocolData, List<DescribedMember> members) {
}
