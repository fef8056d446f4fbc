package io.brook.server.api;

import io.brook.cluster.member.ClusterMember;
import io.brook.cluster.member.QuorumStatus;
import io.brook.wire.message.DescribeQuorumResponse;
import io.brook.wire.message.DescribeQuorumResponse.Node;
import io.brook.wire.message.DescribeQuorumResponse.PartitionData;
import io.brook.wire.message.DescribeQuorumResponse.ReplicaState;
import io.brook.wire.protocol.Errors;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * The metadata quorum of a Brook cluster as DescribeQuorum (key 55) describes it, read from this
 * node's {@link ClusterMember#quorumStatus()}: the Ratis leader and its term as leader id and
 * epoch, the commit index as high watermark, every voter and observer with its log end and last
 * contact times, and (v2+) each voter's controller listener from {@code controller.quorum.voters}
 * under the first of {@code controller.listener.names}, as Kafka lists a static quorum's voters.
 *
 * <p>As in Kafka, the leader's own fetch and caught-up times are "now", and what is not known is
 * -1. Kafka's brokers forward DescribeQuorum to the active controller; Brook answers from the
 * node that receives it, so a follower reports what it knows of the others (its own log end,
 * -1 for theirs where Ratis does not tell a follower). While the node knows no leader (an
 * election is running) the partition is answered NOT_LEADER_OR_FOLLOWER, which Kafka's admin
 * client retries.
 */
final class ClusterQuorumView {

    private final ClusterMember member;
    private final String controllerListener;
    private final Map<Integer, InetSocketAddress> voters;
    private final LongSupplier nowMs;

    /**
     * @param controllerListener the first of {@code controller.listener.names}
     * @param voters {@code controller.quorum.voters}: each voter's controller listener address
     */
    ClusterQuorumView(ClusterMember member, String controllerListener, Map<Integer, InetSocketAddress> voters,
                      LongSupplier nowMs) {
        this.member = member;
        this.controllerListener = controllerListener;
        this.voters = new TreeMap<>(voters);
        this.nowMs = nowMs;
    }

    /** The answer for {@code __cluster_metadata} partition 0 at {@code version}. */
    DescribeQuorumResponse describe(short version) {
        QuorumStatus status = member.quorumStatus();
        PartitionData partition = new PartitionData().partitionIndex(0).errorMessage(null);
        if (status.leaderId() < 0) {
            partition.errorCode(Errors.NOT_LEADER_OR_FOLLOWER.code()).leaderId(-1).leaderEpoch(-1).highWatermark(-1)
                    .currentVoters(List.of()).observers(List.of());
        } else {
            long now = nowMs.getAsLong();
            partition.errorCode(Errors.NONE.code()).leaderId(status.leaderId())
                    .leaderEpoch((int) Math.min(Integer.MAX_VALUE, status.leaderEpoch()))
                    .highWatermark(status.highWatermark())
                    .currentVoters(replicas(status.voters(), status.leaderId(), now))
                    .observers(replicas(status.observers(), status.leaderId(), now));
        }
        DescribeQuorumResponse r = new DescribeQuorumResponse().errorCode(Errors.NONE.code()).errorMessage(null)
                .topics(List.of(new DescribeQuorumResponse.TopicData().topicName(DescribeQuorumHandler.METADATA_TOPIC)
                        .partitions(List.of(partition))));
        if (version >= 2) {
            List<Node> nodes = new ArrayList<>();
            voters.forEach((id, address) -> nodes.add(new Node().nodeId(id).listeners(List.of(
                    new DescribeQuorumResponse.Listener().name(controllerListener).host(address.getHostString())
                            .port(address.getPort())))));
            r.nodes(nodes);
        }
        return r;
    }

    private static List<ReplicaState> replicas(List<QuorumStatus.Replica> replicas, int leaderId, long now) {
        List<ReplicaState> states = new ArrayList<>(replicas.size());
        for (QuorumStatus.Replica replica : replicas) {
            boolean leader = replica.nodeId() == leaderId;
            states.add(new ReplicaState().replicaId(replica.nodeId()).logEndOffset(replica.logEndOffset())
                    .lastFetchTimestamp(leader ? now : replica.lastFetchTimestamp())
                    .lastCaughtUpTimestamp(leader ? now : replica.lastCaughtUpTimestamp()));
        }
        return states;
    }
}
