package io.brook.server.api;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.node.ClusterAdminException;
import io.brook.server.node.ClusterView;
import io.brook.server.node.ClusterView.PartitionState;
import io.brook.server.node.ClusterView.TopicState;
import io.brook.server.topic.Topic;
import io.brook.wire.message.AlterPartitionReassignmentsRequest;
import io.brook.wire.message.AlterPartitionReassignmentsRequest.ReassignablePartition;
import io.brook.wire.message.AlterPartitionReassignmentsRequest.ReassignableTopic;
import io.brook.wire.message.AlterPartitionReassignmentsResponse;
import io.brook.wire.message.AlterPartitionReassignmentsResponse.ReassignablePartitionResponse;
import io.brook.wire.message.AlterPartitionReassignmentsResponse.ReassignableTopicResponse;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * AlterPartitionReassignments (key 45, {@code kafka-reassign-partitions.sh --execute} and
 * {@code --cancel}): a partition named with replicas moves to them, one named with null replicas
 * has its move cancelled.
 *
 * <p>In cluster mode each partition is checked here against the image (the topic and partition
 * exist; KIP-860: with {@code AllowReplicationFactorChange} false the target must keep the
 * partition's replica count) and then decided by the controller, which refuses what Kafka's
 * controller refuses (INVALID_REPLICA_ASSIGNMENT for an empty or repeated list or an unregistered
 * broker, NO_REASSIGNMENT_IN_PROGRESS for a cancel with nothing to cancel); the answer waits until
 * this node's image has every decision. A single node has no other broker: a target of just
 * itself needs no move, any other broker is not registered, and there is never a move to cancel.
 */
final class AlterPartitionReassignmentsHandler implements ApiHandler<AlterPartitionReassignmentsRequest> {

    private final BrokerContext broker;

    AlterPartitionReassignmentsHandler(BrokerContext broker) {
        this.broker = broker;
    }

    @Override
    public void handle(RequestContext ctx, AlterPartitionReassignmentsRequest request) {
        boolean allowRfChange = ctx.apiVersion() < 1 || request.allowReplicationFactorChange();
        List<ReassignableTopicResponse> responses = new ArrayList<>();
        List<CompletableFuture<?>> decisions = new ArrayList<>();
        for (ReassignableTopic t : request.topics()) {
            List<ReassignablePartitionResponse> partitions = new ArrayList<>();
            for (ReassignablePartition p : t.partitions()) {
                ReassignablePartitionResponse r = new ReassignablePartitionResponse().partitionIndex(p.partitionIndex())
                        .errorCode(Errors.NONE.code()).errorMessage(null);
                partitions.add(r);
                ClusterView cluster = broker.cluster();
                if (cluster != null) {
                    reassign(cluster, t.name(), p, allowRfChange, r, decisions);
                } else {
                    reassignSingle(t.name(), p, allowRfChange, r);
                }
            }
            responses.add(new ReassignableTopicResponse().name(t.name()).partitions(partitions));
        }
        AlterPartitionReassignmentsResponse response = new AlterPartitionReassignmentsResponse()
                .allowReplicationFactorChange(allowRfChange).errorCode(Errors.NONE.code()).errorMessage(null)
                .responses(responses);
        CompletableFuture.allOf(decisions.toArray(new CompletableFuture<?>[0]))
                .whenComplete((v, e) -> ctx.respond(response));
    }

    private static void reassign(ClusterView cluster, String topic, ReassignablePartition p, boolean allowRfChange,
            ReassignablePartitionResponse r, List<CompletableFuture<?>> decisions) {
        TopicState t = cluster.topic(topic);
        int index = p.partitionIndex();
        if (t == null || index < 0 || index >= t.partitions().size()) {
            fail(r, Errors.UNKNOWN_TOPIC_OR_PARTITION, "No such topic-partition as " + topic + "-" + index + ".");
            return;
        }
        List<Integer> target = p.replicas();
        if (target != null && !allowRfChange) {
            PartitionState state = t.partitions().get(index);
            int current = originalCount(cluster, topic, index, state);
            if (target.size() != current) {
                fail(r, Errors.INVALID_REPLICATION_FACTOR, "The replication factor is changed from " + current
                        + " to " + target.size() + ", which AllowReplicationFactorChange forbids.");
                return;
            }
        }
        decisions.add(cluster.alterPartitionReassignment(topic, index, target).handle((v, e) -> {
            if (e != null) {
                fail(r, ClusterAdminException.errorOf(e), ClusterAdminException.messageOf(e));
            }
            return null;
        }));
    }

    /** The partition's replica count before its move under way, if any. */
    private static int originalCount(ClusterView cluster, String topic, int partition, PartitionState state) {
        for (ClusterView.Reassignment m : cluster.reassignments()) {
            if (m.topic().equals(topic) && m.partition() == partition) {
                return m.replicas().size() - m.adding().size();
            }
        }
        return state.replicas().size();
    }

    private void reassignSingle(String topicName, ReassignablePartition p, boolean allowRfChange,
            ReassignablePartitionResponse r) {
        Topic topic = broker.topics().get(topicName);
        int index = p.partitionIndex();
        if (topic == null || index < 0 || index >= topic.partitions()) {
            fail(r, Errors.UNKNOWN_TOPIC_OR_PARTITION, "No such topic-partition as " + topicName + "-" + index + ".");
            return;
        }
        List<Integer> target = p.replicas();
        if (target == null) {
            fail(r, Errors.NO_REASSIGNMENT_IN_PROGRESS, "No reassignment is in progress for " + topicName + "-"
                    + index + ".");
            return;
        }
        if (target.isEmpty()) {
            fail(r, Errors.INVALID_REPLICA_ASSIGNMENT, "The manual partition assignment includes an empty replica list.");
            return;
        }
        Set<Integer> seen = new HashSet<>();
        for (int id : target) {
            if (!seen.add(id)) {
                fail(r, Errors.INVALID_REPLICA_ASSIGNMENT, "The manual partition assignment includes the broker " + id
                        + " more than once.");
                return;
            }
            if (id != broker.nodeId()) {
                fail(r, Errors.INVALID_REPLICA_ASSIGNMENT, "The manual partition assignment includes broker " + id
                        + ", but no such broker is registered.");
                return;
            }
        }
        if (!allowRfChange && target.size() != 1) {
            fail(r, Errors.INVALID_REPLICATION_FACTOR, "The replication factor is changed from 1 to " + target.size()
                    + ", which AllowReplicationFactorChange forbids.");
        }
    }

    private static void fail(ReassignablePartitionResponse r, Errors error, String message) {
        r.errorCode(error.code()).errorMessage(message);
    }
}
