package io.brook.coordinator.group;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;

import io.brook.wire.message.ConsumerGroupDescribeResponse;
import io.brook.wire.protocol.Errors;

/**
 * ConsumerGroupDescribe (KIP-848): each consumer group with its epochs, assignor and members, each
 * member with what it holds and what the target gives it (topics by id and name). A group that is
 * not a consumer group (unknown, or classic) is GROUP_ID_NOT_FOUND, which is what makes Kafka's
 * admin client describe it with DescribeGroups instead. Coordinator thread only.
 */
final class ConsumerGroupDescriptions {

    /** ConsumerGroupDescribe's member type of a member of the consumer protocol (v1+). */
    private static final byte CONSUMER_MEMBER_TYPE = 1;

    private ConsumerGroupDescriptions() {
    }

    /**
     * @param loadError per group id: why it cannot be looked at now (its partition loading, or not
     *                  owned here), or NONE
     * @param operations the authorized-operations bits to report, or null when not asked for
     */
    static ConsumerGroupDescribeResponse describe(List<String> groupIds, short version, ClassicGroups groups,
                                                  ConsumerGroupTopics topics, String defaultAssignor,
                                                  Function<String, Errors> loadError, Integer operations) {
        List<ConsumerGroupDescribeResponse.DescribedGroup> out = new ArrayList<>(groupIds.size());
        for (String id : groupIds) {
            Errors notLoaded = id == null ? Errors.INVALID_GROUP_ID : loadError.apply(id);
            ClassicGroup group = notLoaded == Errors.NONE ? groups.get(id) : null;
            if (notLoaded != Errors.NONE || group == null || group.modern == null || group.is(GroupState.DEAD)) {
                Errors e = notLoaded != Errors.NONE ? notLoaded : Errors.GROUP_ID_NOT_FOUND;
                String message = e == Errors.GROUP_ID_NOT_FOUND
                        ? (group == null ? "Group " + id + " not found." : "Group " + id + " is not a consumer group.") : null;
                out.add(new ConsumerGroupDescribeResponse.DescribedGroup().groupId(id == null ? "" : id)
                        .errorCode(e.code()).errorMessage(message).groupState("").assignorName(""));
                continue;
            }
            ConsumerGroup cg = group.modern;
            List<ConsumerGroupDescribeResponse.Member> members = new ArrayList<>(cg.members.size());
            for (ConsumerGroupMember m : cg.memberList()) {
                ConsumerGroupDescribeResponse.Member member = new ConsumerGroupDescribeResponse.Member()
                        .memberId(m.memberId).instanceId(m.instanceId).rackId(m.rackId).memberEpoch(m.memberEpoch)
                        .clientId(m.clientId).clientHost(m.clientHost)
                        .subscribedTopicNames(new ArrayList<>(m.subscribedTopicNames))
                        .subscribedTopicRegex(m.subscribedTopicRegex)
                        .assignment(assignment(m.assigned, topics))
                        .targetAssignment(assignment(cg.targetOf(m.memberId), topics));
                if (version >= 1) member.memberType(CONSUMER_MEMBER_TYPE);
                members.add(member);
            }
            ConsumerGroupDescribeResponse.DescribedGroup described = new ConsumerGroupDescribeResponse.DescribedGroup()
                    .groupId(id).groupState(cg.stateLabel()).groupEpoch(cg.groupEpoch).assignmentEpoch(cg.assignmentEpoch)
                    .assignorName(cg.preferredAssignor(defaultAssignor)).members(members);
            if (operations != null) described.authorizedOperations(operations);
            out.add(described);
        }
        return new ConsumerGroupDescribeResponse().groups(out);
    }

    private static ConsumerGroupDescribeResponse.Assignment assignment(Map<UUID, Set<Integer>> partitions, ConsumerGroupTopics topics) {
        List<ConsumerGroupDescribeResponse.TopicPartitions> out = new ArrayList<>(partitions.size());
        partitions.forEach((id, parts) -> {
            ConsumerGroupTopics.TopicInfo t = topics.byId(id);
            // a topic deleted since: Kafka leaves it out of the description too
            if (t != null) {
                out.add(new ConsumerGroupDescribeResponse.TopicPartitions().topicId(id).topicName(t.name())
                        .partitions(new ArrayList<>(parts)));
            }
        });
        return new ConsumerGroupDescribeResponse.Assignment().topicPartitions(out);
    }
}
