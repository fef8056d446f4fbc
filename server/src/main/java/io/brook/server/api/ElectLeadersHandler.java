package io.brook.server.api;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.node.ClusterAdminException;
import io.brook.server.node.ClusterView;
import io.brook.server.node.ClusterView.PartitionState;
import io.brook.server.node.ClusterView.TopicState;
import io.brook.server.topic.Topic;
import io.brook.wire.message.ElectLeadersRequest;
import io.brook.wire.message.ElectLeadersRequest.TopicPartitions;
import io.brook.wire.message.ElectLeadersResponse;
import io.brook.wire.message.ElectLeadersResponse.PartitionResult;
import io.brook.wire.message.ElectLeadersResponse.ReplicaElectionResult;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * ElectLeaders (key 43, {@code kafka-leader-election.sh}): on a single node every partition's one
 * replica is its leader and its preferred replica, so no election is ever needed. As Kafka's
 * controller answers: each partition named gets ELECTION_NOT_NEEDED (UNKNOWN_TOPIC_OR_PARTITION
 * when it does not exist); a request for all partitions (null) lists every topic with no
 * partition (those that need no election are left out); an unknown election type is an
 * INVALID_REQUEST.
 *
 * <p>In cluster mode each partition named (or, for null, each one whose preferred replica does
 * not lead, or without a leader for an unclean election) is elected by the controller from the
 * image, with Kafka's errors (ELECTION_NOT_NEEDED, PREFERRED_LEADER_NOT_AVAILABLE,
 * ELIGIBLE_LEADERS_NOT_AVAILABLE); the answer waits until this node's image has the elections.
 */
final class ElectLeadersHandler implements ApiHandler<ElectLeadersRequest> {

    /** Election types (KIP-460): 0 preferred, 1 unclean. */
    private static final byte PREFERRED = 0;
    private static final byte UNCLEAN = 1;

    private final BrokerContext broker;

    ElectLeadersHandler(BrokerContext broker) {
        this.broker = broker;
    }

    @Override
    public void handle(RequestContext ctx, ElectLeadersRequest request) {
        short version = ctx.apiVersion();
        if (version >= 1 && request.electionType() != PREFERRED && request.electionType() != UNCLEAN) {
            ctx.respond(request.errorResponse(version, Errors.INVALID_REQUEST));
            return;
        }
        if (broker.cluster() != null) {
            electInCluster(ctx, request, broker.cluster(), version >= 1 && request.electionType() == UNCLEAN);
            return;
        }
        List<ReplicaElectionResult> results = new ArrayList<>();
        if (request.topicPartitions() == null) {
            for (Topic t : broker.topics().all()) {
                results.add(new ReplicaElectionResult().topic(t.name()).partitionResult(new ArrayList<>()));
            }
        } else {
            for (TopicPartitions tp : request.topicPartitions()) {
                Topic t = broker.topics().get(tp.topic());
                List<PartitionResult> partitions = new ArrayList<>();
                for (int p : tp.partitions()) {
                    PartitionResult r = new PartitionResult().partitionId(p);
                    if (t == null) {
                        r.errorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()).errorMessage("No such topic as " + tp.topic());
                    } else if (p < 0 || p >= t.partitions()) {
                        r.errorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                                .errorMessage("No such partition as " + tp.topic() + "-" + p);
                    } else {
                        r.errorCode(Errors.ELECTION_NOT_NEEDED.code()).errorMessage(null);
                    }
                    partitions.add(r);
                }
                results.add(new ReplicaElectionResult().topic(tp.topic()).partitionResult(partitions));
            }
        }
        ctx.respond(new ElectLeadersResponse().errorCode(Errors.NONE.code()).replicaElectionResults(results));
    }

    private static void electInCluster(RequestContext ctx, ElectLeadersRequest request, ClusterView cluster,
            boolean unclean) {
        Map<String, List<Integer>> wanted = new LinkedHashMap<>();
        boolean all = request.topicPartitions() == null;
        if (all) {
            for (TopicState t : cluster.topics()) {
                List<Integer> partitions = new ArrayList<>();
                for (PartitionState p : t.partitions()) {
                    boolean needed = unclean ? p.leader() < 0 : p.leader() != p.replicas().get(0);
                    if (needed) {
                        partitions.add(p.partition());
                    }
                }
                wanted.put(t.name(), partitions);
            }
        } else {
            for (TopicPartitions tp : request.topicPartitions()) {
                wanted.computeIfAbsent(tp.topic(), k -> new ArrayList<>()).addAll(tp.partitions());
            }
        }
        List<ReplicaElectionResult> results = new ArrayList<>();
        List<CompletableFuture<?>> elections = new ArrayList<>();
        wanted.forEach((topic, partitions) -> {
            TopicState t = cluster.topic(topic);
            List<PartitionResult> out = Collections.synchronizedList(new ArrayList<>());
            for (int p : partitions) {
                PartitionResult r = new PartitionResult().partitionId(p).errorCode(Errors.NONE.code()).errorMessage(null);
                if (t == null || p < 0 || p >= t.partitions().size()) {
                    out.add(r.errorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                            .errorMessage("No such topic-partition as " + topic + "-" + p));
                    continue;
                }
                elections.add(cluster.electLeader(topic, p, unclean).handle((v, e) -> {
                    Errors error = e == null ? Errors.NONE : ClusterAdminException.errorOf(e);
                    if (e != null) {
                        r.errorCode(error.code()).errorMessage(ClusterAdminException.messageOf(e));
                    }
                    if (!all || error != Errors.ELECTION_NOT_NEEDED) {
                        out.add(r);
                    }
                    return null;
                }));
            }
            results.add(new ReplicaElectionResult().topic(topic).partitionResult(out));
        });
        CompletableFuture.allOf(elections.toArray(new CompletableFuture<?>[0])).whenComplete((v, e) -> {
            for (ReplicaElectionResult r : results) {
                List<PartitionResult> sorted = new ArrayList<>(r.partitionResult());
                sorted.sort(Comparator.comparingInt(PartitionResult::partitionId));
                r.partitionResult(sorted);
            }
            ctx.respond(new ElectLeadersResponse().errorCode(Errors.NONE.code()).replicaElectionResults(results));
        });
    }
}
