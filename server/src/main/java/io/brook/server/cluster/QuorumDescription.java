package io.brook.server.cluster;

import io.brook.cluster.member.ClusterMember;
import io.brook.cluster.member.QuorumStatus;
import io.brook.server.node.MetadataQuorum;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The metadata quorum for DescribeQuorum: the leader's {@link ClusterMember#leaderQuorumStatus()}
 * ({@link #describeFromLeader()}, falling back to this node's own view when the leader does not
 * answer within {@link #LEADER_TIMEOUT_MS}), or this node's own
 * {@link ClusterMember#quorumStatus()} (Ratis' leader, term, commit index, and what this node
 * knows of each voter) with each voter's controller listener from the configuration ({@code
 * controller.quorum.voters} under the first of {@code controller.listener.names}), as Kafka lists
 * a static quorum's voters.
 */
final class QuorumDescription {

    private final ClusterMember member;
    private final List<MetadataQuorum.VoterEndpoint> endpoints;

    /**
     * @param controllerListener the first of {@code controller.listener.names}
     * @param voters {@code controller.quorum.voters}: each voter's controller listener address
     */
    QuorumDescription(ClusterMember member, String controllerListener, Map<Integer, InetSocketAddress> voters) {
        this.member = member;
        List<MetadataQuorum.VoterEndpoint> list = new ArrayList<>();
        new TreeMap<>(voters).forEach((id, address) -> list.add(
                new MetadataQuorum.VoterEndpoint(id, controllerListener, address.getHostString(), address.getPort())));
        this.endpoints = List.copyOf(list);
    }

    /** How long DescribeQuorum waits for the leader's view before it answers with this node's. */
    static final long LEADER_TIMEOUT_MS = 5_000;

    MetadataQuorum describe() {
        return of(member.quorumStatus());
    }

    /** The leader's view; this node's own if the leader does not answer in time. Never fails. */
    CompletableFuture<MetadataQuorum> describeFromLeader() {
        return member.leaderQuorumStatus().orTimeout(LEADER_TIMEOUT_MS, TimeUnit.MILLISECONDS)
                .handle((s, e) -> e == null ? of(s) : describe());
    }

    private MetadataQuorum of(QuorumStatus s) {
        return new MetadataQuorum(s.leaderId(), s.leaderEpoch(), s.highWatermark(), replicas(s.voters()),
                replicas(s.observers()), endpoints);
    }

    private static List<MetadataQuorum.Replica> replicas(List<QuorumStatus.Replica> replicas) {
        List<MetadataQuorum.Replica> out = new ArrayList<>(replicas.size());
        for (QuorumStatus.Replica r : replicas) {
            out.add(new MetadataQuorum.Replica(r.nodeId(), r.logEndOffset(), r.lastFetchTimestamp(),
                    r.lastCaughtUpTimestamp()));
        }
        return out;
    }
}
