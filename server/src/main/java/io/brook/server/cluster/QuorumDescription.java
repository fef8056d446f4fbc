package io.brook.server.cluster;

import io.brook.cluster.member.ClusterMember;
import io.brook.cluster.member.QuorumStatus;
import io.brook.server.node.MetadataQuorum;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The metadata quorum for DescribeQuorum: the leader's {@link ClusterMember#leaderQuorumStatus()}
 * ({@link #describeFromLeader()}, falling back to this node's own view when the leader does not
 * answer within {@link #LEADER_TIMEOUT_MS}), or this node's own
 * {@link ClusterMember#quorumStatus()} (Ratis' leader, term, commit index, and what this node
 * knows of each voter) with each voter's controller listener from the configuration ({@code
 * controller.quorum.voters} under the first of {@code controller.listener.names}), as Kafka lists
 * a static quorum's voters; once the voters changed (AddRaftVoter, RemoveRaftVoter), from the
 * member's Raft configuration instead. Broker-only nodes (Ratis listeners) are the observers.
 * Each replica's directory id is the one its node reported, from this node's image.
 */
final class QuorumDescription {

    private final ClusterMember member;
    private final List<MetadataQuorum.VoterEndpoint> endpoints;
    private final String controllerListener;

    /**
     * @param controllerListener the first of {@code controller.listener.names}
     * @param voters {@code controller.quorum.voters}: each voter's controller listener address
     */
    QuorumDescription(ClusterMember member, String controllerListener, Map<Integer, InetSocketAddress> voters) {
        this.member = member;
        this.controllerListener = controllerListener;
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
        Map<Integer, UUID> directories = member.read(image -> Map.copyOf(image.directories()));
        return new MetadataQuorum(s.leaderId(), s.leaderEpoch(), s.highWatermark(), replicas(s.voters(), directories),
                replicas(s.observers(), directories), endpoints());
    }

    /** The configured endpoints while they name the current voters; else the current voters' Raft addresses. */
    private List<MetadataQuorum.VoterEndpoint> endpoints() {
        Map<Integer, String> current = member.voterAddresses();
        if (current.isEmpty() || current.keySet().equals(configuredIds())) {
            return endpoints;
        }
        List<MetadataQuorum.VoterEndpoint> list = new ArrayList<>();
        current.forEach((id, address) -> {
            int colon = address.lastIndexOf(':');
            list.add(new MetadataQuorum.VoterEndpoint(id, controllerListener, address.substring(0, colon),
                    Integer.parseInt(address.substring(colon + 1))));
        });
        return list;
    }

    private java.util.Set<Integer> configuredIds() {
        java.util.Set<Integer> ids = new java.util.TreeSet<>();
        endpoints.forEach(e -> ids.add(e.nodeId()));
        return ids;
    }

    private static List<MetadataQuorum.Replica> replicas(List<QuorumStatus.Replica> replicas,
                                                         Map<Integer, UUID> directories) {
        List<MetadataQuorum.Replica> out = new ArrayList<>(replicas.size());
        for (QuorumStatus.Replica r : replicas) {
            out.add(new MetadataQuorum.Replica(r.nodeId(), r.logEndOffset(), r.lastFetchTimestamp(),
                    r.lastCaughtUpTimestamp(), directories.get(r.nodeId())));
        }
        return out;
    }
}
