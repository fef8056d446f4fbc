package io.brook.server.api;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.node.ClusterView;
import io.brook.server.node.ClusterView.Reassignment;
import io.brook.wire.message.ListPartitionReassignmentsRequest;
import io.brook.wire.message.ListPartitionReassignmentsRequest.ListPartitionReassignmentsTopics;
import io.brook.wire.message.ListPartitionReassignmentsResponse;
import io.brook.wire.message.ListPartitionReassignmentsResponse.OngoingPartitionReassignment;
import io.brook.wire.message.ListPartitionReassignmentsResponse.OngoingTopicReassignment;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * ListPartitionReassignments (key 46, {@code kafka-reassign-partitions.sh --list} and
 * {@code --verify}): the partitions being moved, with their replicas, adding and removing
 * replicas, for all topics or the partitions named (Kafka leaves out partitions without an
 * ongoing reassignment, unknown ones included). In cluster mode they come from this node's image;
 * a single node has no other broker to move a replica to, so it lists none.
 */
final class ListPartitionReassignmentsHandler implements ApiHandler<ListPartitionReassignmentsRequest> {

    private final BrokerContext broker;

    ListPartitionReassignmentsHandler(BrokerContext broker) {
        this.broker = broker;
    }

    @Override
    public void handle(RequestContext ctx, ListPartitionReassignmentsRequest request) {
        ClusterView cluster = broker.cluster();
        List<Reassignment> moving = cluster == null ? List.of() : cluster.reassignments();
        Set<String> wanted = null;
        if (request.topics() != null) {
            wanted = new TreeSet<>();
            for (ListPartitionReassignmentsTopics t : request.topics()) {
                for (int p : t.partitionIndexes()) {
                    wanted.add(t.name() + "\u0000" + p);
                }
            }
        }
        Map<String, List<OngoingPartitionReassignment>> byTopic = new LinkedHashMap<>();
        for (Reassignment m : moving) {
            if (wanted == null || wanted.contains(m.topic() + "\u0000" + m.partition())) {
                byTopic.computeIfAbsent(m.topic(), k -> new ArrayList<>()).add(new OngoingPartitionReassignment()
                        .partitionIndex(m.partition()).replicas(new ArrayList<>(m.replicas()))
                        .addingReplicas(new ArrayList<>(m.adding())).removingReplicas(new ArrayList<>(m.removing())));
            }
        }
        List<OngoingTopicReassignment> topics = new ArrayList<>();
        byTopic.forEach((name, partitions) -> topics.add(new OngoingTopicReassignment().name(name).partitions(partitions)));
        ctx.respond(new ListPartitionReassignmentsResponse().errorCode(Errors.NONE.code()).errorMessage(null)
                .topics(topics));
    }
}
