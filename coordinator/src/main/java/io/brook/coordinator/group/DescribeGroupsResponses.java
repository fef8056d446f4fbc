package io.brook.coordinator.group;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.Function;

import io.brook.wire.message.DescribeGroupsRequest;
import io.brook.wire.message.DescribeGroupsResponse;
import io.brook.wire.protocol.Errors;

/**
 * DescribeGroups' answers as wire messages: the groups {@link GroupAdmin} describes, and Kafka's
 * shape for a group that cannot be looked at now (its partition loading, or not owned here).
 * Coordinator thread only.
 */
final class DescribeGroupsResponses {

    private DescribeGroupsResponses() {
    }

    /**
     * @param loadError per group id: why it cannot be looked at now, or NONE
     * @param authorizedOperations the bits reported when the request asks for them (v3+)
     */
    static DescribeGroupsResponse describe(DescribeGroupsRequest request, short version, GroupAdmin admin,
                                           Function<String, Errors> loadError, int authorizedOperations) {
        boolean withOperations = version >= 3 && request.includeAuthorizedOperations();
        List<DescribeGroupsResponse.DescribedGroup> out = new ArrayList<>();
        List<String> loadedIds = new ArrayList<>(request.groups().size());
        List<Errors> notLoaded = new ArrayList<>(request.groups().size());
        for (String id : request.groups()) {
            Errors e = loadError.apply(id);
            notLoaded.add(e);
            if (e == Errors.NONE) loadedIds.add(id);
        }
        Iterator<DescribedGroup> loadedGroups = admin.describe(loadedIds, version).iterator();
        for (int i = 0; i < request.groups().size(); i++) {
            if (notLoaded.get(i) != Errors.NONE) {
                // Kafka's shape for a group it cannot look at: the id and the error, every other field at its default
                out.add(new DescribeGroupsResponse.DescribedGroup().groupId(request.groups().get(i))
                        .errorCode(notLoaded.get(i).code()).groupState("").protocolType("").protocolData(""));
                continue;
            }
            DescribedGroup g = loadedGroups.next();
            List<DescribeGroupsResponse.DescribedGroupMember> members = new ArrayList<>(g.members().size());
            for (DescribedMember m : g.members()) {
                members.add(new DescribeGroupsResponse.DescribedGroupMember().memberId(m.memberId())
                        .groupInstanceId(m.groupInstanceId()).clientId(m.clientId()).clientHost(m.clientHost())
                        .memberMetadata(m.metadata()).memberAssignment(m.assignment()));
            }
            DescribeGroupsResponse.DescribedGroup described = new DescribeGroupsResponse.DescribedGroup()
                    .errorCode(g.error().code()).errorMessage(g.errorMessage()).groupId(g.groupId())
                    .groupState(g.state()).protocolType(g.protocolType()).protocolData(g.protocolData()).members(members);
            if (withOperations && g.error() == Errors.NONE) described.authorizedOperations(authorizedOperations);
            out.add(described);
        }
        return new DescribeGroupsResponse().groups(out);
    }

    /** Every group of the request with the same error. */
    static DescribeGroupsResponse error(DescribeGroupsRequest request, Errors e) {
        List<DescribeGroupsResponse.DescribedGroup> out = new ArrayList<>();
        for (String id : request.groups()) {
            out.add(new DescribeGroupsResponse.DescribedGroup().groupId(id).errorCode(e.code())
                    .groupState(GroupState.DEAD.label()).protocolType("").protocolData(""));
        }
        return new DescribeGroupsResponse().groups(out);
    }
}
