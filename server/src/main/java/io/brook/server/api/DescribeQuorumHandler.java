package io.brook.server.api;

import io.brook.server.config.Listener;
import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.node.ClusterView;
import io.brook.wire.message.DescribeQuorumRequest;
import io.brook.wire.message.DescribeQuorumResponse;
import io.brook.wire.message.DescribeQuorumResponse.Node;
import io.brook.wire.message.DescribeQuorumResponse.PartitionData;
import io.brook.wire.message.DescribeQuorumResponse.ReplicaState;
import io.brook.wire.message.DescribeQuorumResponse.TopicData;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.List;

/**
 * DescribeQuorum (key 55, {@code kafka-metadata-quorum.sh describe}): the KRaft metadata quorum of
 * a single node, which is this broker, its only voter and its leader. Brook keeps its metadata in
 * files of the data directory rather than in a replicated {@code __cluster_metadata} log, so the
 * quorum is described as one that never changed: leader epoch 1, high watermark and log end
 * offset 0, no observers, no directory id; the leader's fetch and caught-up times are now, as
 * Kafka reports its leader's. The request must name {@code __cluster_metadata} partition 0, as
 * Kafka's client does; anything else is answered UNKNOWN_TOPIC_OR_PARTITION per partition, as
 * Kafka's raft client answers it. The node's listener (v2+) is the advertised one.
 *
 * <p>In cluster mode the quorum is the cluster's Ratis quorum as its leader sees it (asked of the
 * leader, as Kafka forwards the request to the active controller), described by {@link ClusterQuorumView}.
 */
final class DescribeQuorumHandler implements ApiHandler<DescribeQuorumRequest> {

    static final String METADATA_TOPIC = "__cluster_metadata";
    static final int LEADER_EPOCH = 1;

    private final BrokerContext broker;

    DescribeQuorumHandler(BrokerContext broker) {
        this.broker = broker;
    }

    @Override
    public void handle(RequestContext ctx, DescribeQuorumRequest request) {
        short version = ctx.apiVersion();
        boolean valid = request.topics().size() == 1
                && request.topics().get(0).topicName().equals(METADATA_TOPIC)
                && request.topics().get(0).partitions().size() == 1
                && request.topics().get(0).partitions().get(0).partitionIndex() == 0;
        if (!valid) {
            List<TopicData> topics = new ArrayList<>();
            for (DescribeQuorumRequest.TopicData t : request.topics()) {
                List<PartitionData> partitions = new ArrayList<>();
                for (DescribeQuorumRequest.PartitionData p : t.partitions()) {
                    partitions.add(new PartitionData().partitionIndex(p.partitionIndex())
                            .errorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()).errorMessage(null));
                }
                topics.add(new TopicData().topicName(t.topicName()).partitions(partitions));
            }
            ctx.respond(new DescribeQuorumResponse().errorCode(Errors.NONE.code()).topics(topics));
            return;
        }
        ClusterView cluster = broker.cluster();
        if (cluster != null) {
            cluster.leaderQuorum().whenComplete((q, e) -> ctx.respond(ClusterQuorumView.describe(
                    e == null ? q : cluster.quorum(), version, System.currentTimeMillis())));
            return;
        }
        long now = System.currentTimeMillis();
        ReplicaState self = new ReplicaState().replicaId(broker.nodeId()).logEndOffset(0)
                .lastFetchTimestamp(now).lastCaughtUpTimestamp(now);
        PartitionData partition = new PartitionData().partitionIndex(0).errorCode(Errors.NONE.code())
                .errorMessage(null).leaderId(broker.nodeId()).leaderEpoch(LEADER_EPOCH).highWatermark(0)
                .currentVoters(List.of(self)).observers(List.of());
        DescribeQuorumResponse r = new DescribeQuorumResponse().errorCode(Errors.NONE.code()).errorMessage(null)
                .topics(List.of(new TopicData().topicName(METADATA_TOPIC).partitions(List.of(partition))));
        if (version >= 2) {
            Listener adv = broker.advertised();
            r.nodes(List.of(new Node().nodeId(broker.nodeId()).listeners(List.of(
                    new DescribeQuorumResponse.Listener().name(adv.name()).host(adv.host()).port(adv.port())))));
        }
        ctx.respond(r);
    }
}
