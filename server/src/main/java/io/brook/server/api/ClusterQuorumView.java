package io.brook.server.api;

import io.brook.server.node.MetadataQuorum;
import io.brook.wire.message.DescribeQuorumResponse;
import io.brook.wire.message.DescribeQuorumResponse.Node;
import io.brook.wire.message.DescribeQuorumResponse.PartitionData;
import io.brook.wire.message.DescribeQuorumResponse.ReplicaState;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.List;

/**
 * DescribeQuorum's answer (key 55) in cluster mode, from the {@link MetadataQuorum} this node
 * sees: the Ratis leader and its term as leader id and epoch, the commit index as high watermark,
 * every voter and observer with its log end and last contact times and (v2+) its data directory
 * id (KIP-853, as the node reported it to the controller), and (v2+) each voter's
 * controller listener, as Kafka lists a static quorum's voters.
 *
 * <p>As in Kafka, the leader's own fetch and caught-up times are "now", and what is not known is
 * -1. Kafka's brokers forward DescribeQuorum to the active controller; Brook answers from the
 * node that receives it, so a follower reports what it knows of the others (its own log end,
 * -1 for theirs). While the node knows no leader (an election is running) the partition is
 * answered NOT_LEADER_OR_FOLLOWER, as Kafka's raft client answers when it is not the leader, and
 * Kafka's admin client retries it.
 */
final class ClusterQuorumView {

    /** Kafka's "no directory id" (Uuid.ZERO_UUID), which its tools print as null. */
    private static final java.util.UUID NO_DIRECTORY = new java.util.UUID(0, 0);

    private ClusterQuorumView() {
    }

    /** The answer for {@code __cluster_metadata} partition 0 at {@code version}, {@code nowMs} being now. */
    static DescribeQuorumResponse describe(MetadataQuorum quorum, short version, long nowMs) {
        PartitionData partition = new PartitionData().partitionIndex(0).errorMessage(null);
        if (quorum.leaderId() < 0) {
            partition.errorCode(Errors.NOT_LEADER_OR_FOLLOWER.code()).leaderId(-1).leaderEpoch(-1).highWatermark(-1)
                    .currentVoters(List.of()).observers(List.of());
        } else {
            partition.errorCode(Errors.NONE.code()).leaderId(quorum.leaderId())
                    .leaderEpoch((int) Math.min(Integer.MAX_VALUE, quorum.leaderEpoch()))
                    .highWatermark(quorum.highWatermark())
                    .currentVoters(replicas(quorum.voters(), quorum.leaderId(), nowMs))
                    .observers(replicas(quorum.observers(), quorum.leaderId(), nowMs));
        }
        DescribeQuorumResponse r = new DescribeQuorumResponse().errorCode(Errors.NONE.code()).errorMessage(null)
                .topics(List.of(new DescribeQuorumResponse.TopicData().topicName(DescribeQuorumHandler.METADATA_TOPIC)
                        .partitions(List.of(partition))));
        if (version >= 2) {
            List<Node> nodes = new ArrayList<>();
            for (MetadataQuorum.VoterEndpoint e : quorum.endpoints()) {
                nodes.add(new Node().nodeId(e.nodeId()).listeners(List.of(
                        new DescribeQuorumResponse.Listener().name(e.listener()).host(e.host()).port(e.port()))));
            }
            r.nodes(nodes);
        }
        return r;
    }

    private static List<ReplicaState> replicas(List<MetadataQuorum.Replica> replicas, int leaderId, long now) {
        List<ReplicaState> states = new ArrayList<>(replicas.size());
        for (MetadataQuorum.Replica replica : replicas) {
            boolean leader = replica.nodeId() == leaderId;
            states.add(new ReplicaState().replicaId(replica.nodeId())
                    .replicaDirectoryId(replica.directoryId() == null ? NO_DIRECTORY : replica.directoryId())
                    .logEndOffset(replica.logEndOffset())
                    .lastFetchTimestamp(leader ? now : replica.lastFetchTimestamp())
                    .lastCaughtUpTimestamp(leader ? now : replica.lastCaughtUpTimestamp()));
        }
        return states;
    }
}
