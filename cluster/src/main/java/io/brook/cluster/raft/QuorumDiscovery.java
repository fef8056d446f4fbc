package io.brook.cluster.raft;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.GroupInfoReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a node learns from the running voters before its Ratis server starts (docs/cluster.md,
 * section 9): that none of them serves another cluster's metadata group, that no other process
 * already answers at this voter's own address, and the group's current members (voters and
 * listeners, as the group's Ratis configuration has them, which AddRaftVoter and RemoveRaftVoter
 * change). A node asks the addresses of {@code controller.quorum.voters} and of {@code
 * controller.quorum.bootstrap.servers}; the latter have no ids, so they are asked under made-up
 * peer ids (Ratis' group-management service answers whatever peer id it is addressed as).
 *
 * <p>A voter that does not answer may not have started yet and is not held against the node.
 */
final class QuorumDiscovery {
    private static final Logger LOG = LoggerFactory.getLogger(QuorumDiscovery.class);

    private QuorumDiscovery() {
    }

    /**
     * Checks this node against the running voters and returns the group's members as the leader
     * (or, without a leader, the first voter that answers) reports them; null if none answers.
     *
     * @param firstVoters whether this node restarts with the {@code controller.quorum.voters} it
     *     first started with: then the group's voters may differ from them, having changed through
     *     AddRaftVoter or RemoveRaftVoter since, and Ratis' stored configuration wins
     */
    static QuorumMembers check(QuorumConfig config, RaftGroupId groupId, RaftProperties props,
                               boolean firstVoters) {
        QuorumMembers found = null;
        boolean fromLeader = false;
        for (RaftPeer peer : addresses(config)) {
            if (peer.getId().toString().equals(String.valueOf(config.nodeId()))) {
                checkSelfNotRunning(config, groupId, peer, props);
                continue;
            }
            List<RaftGroupId> served;
            GroupInfoReply info = null;
            try (RaftClient c = client(props, groupId, peer)) {
                served = c.getGroupManagementApi(peer.getId()).list().getGroupIds();
                if (served.contains(groupId)) {
                    info = c.getGroupManagementApi(peer.getId()).info(groupId);
                }
            } catch (IOException | RuntimeException e) {
                LOG.debug("Voter {} at {} did not answer: {}", peer.getId(), peer.getAddress(), e.toString());
                continue;
            }
            if (!served.isEmpty() && !served.contains(groupId)) {
                throw new ClusterMembershipException("node " + config.nodeId() + " is configured for cluster "
                        + config.clusterId() + " (metadata group " + groupId.getUuid() + "), but voter "
                        + peer.getId() + " at " + peer.getAddress() + " serves another cluster (metadata group "
                        + served.get(0).getUuid() + "): check cluster.id and controller.quorum.voters");
            }
            if (info == null) {
                continue;
            }
            QuorumMembers members = QuorumMembers.of(info.getGroup());
            if (config.configuredVoter() && !firstVoters) {
                checkSameVoters(config, peer, members);
            }
            boolean leader = info.getRoleInfoProto().getRole() == RaftPeerRole.LEADER;
            if (found == null || (leader && !fromLeader)) {
                found = members;
                fromLeader = leader;
            }
        }
        return found;
    }

    /**
     * The group's members as its current leader reports them, asking each of {@code voters};
     * null if no voter answers as the leader.
     */
    static QuorumMembers fromLeader(RaftGroupId groupId, RaftProperties props, Map<Integer, String> voters) {
        for (Map.Entry<Integer, String> v : voters.entrySet()) {
            RaftPeer peer = RaftPeer.newBuilder().setId(RaftPeerId.valueOf(String.valueOf(v.getKey())))
                    .setAddress(v.getValue()).build();
            try (RaftClient c = client(props, groupId, peer)) {
                GroupInfoReply info = c.getGroupManagementApi(peer.getId()).info(groupId);
                if (info.getRoleInfoProto().getRole() == RaftPeerRole.LEADER) {
                    return QuorumMembers.of(info.getGroup());
                }
            } catch (IOException | RuntimeException e) {
                LOG.debug("Voter {} at {} did not answer: {}", peer.getId(), peer.getAddress(), e.toString());
            }
        }
        return null;
    }

    private static RaftClient client(RaftProperties props, RaftGroupId groupId, RaftPeer peer) {
        return RaftClient.newBuilder().setProperties(props).setRaftGroup(RaftGroup.valueOf(groupId, peer))
                .setRetryPolicy(RetryPolicies.noRetry()).build();
    }

    /** The voters of {@code controller.quorum.voters} by id, then the bootstrap servers under made-up ids. */
    private static List<RaftPeer> addresses(QuorumConfig config) {
        List<RaftPeer> out = new ArrayList<>();
        for (Map.Entry<Integer, InetSocketAddress> v : config.voters().entrySet()) {
            out.add(RaftPeer.newBuilder().setId(RaftPeerId.valueOf(String.valueOf(v.getKey())))
                    .setAddress(address(v.getValue())).build());
        }
        int i = 0;
        for (InetSocketAddress b : config.bootstrapServers()) {
            out.add(RaftPeer.newBuilder().setId(RaftPeerId.valueOf("bootstrap-" + i++)).setAddress(address(b)).build());
        }
        return out;
    }

    static String address(InetSocketAddress a) {
        return a.getHostString() + ":" + a.getPort();
    }

    /**
     * A Raft server that already answers at this node's own voter address is another process with
     * this {@code node.id} (or this node, started twice): refused with that said, rather than with
     * the port's bind error.
     */
    private static void checkSelfNotRunning(QuorumConfig config, RaftGroupId groupId, RaftPeer self,
                                            RaftProperties props) {
        try (RaftClient c = client(props, groupId, self)) {
            c.getGroupManagementApi(self.getId()).list();
        } catch (IOException | RuntimeException e) {
            return; // nothing answers there: the address is ours to take
        }
        throw new ClusterMembershipException("node " + config.nodeId() + ": a metadata quorum server already answers at "
                + self.getAddress() + ", this node's address in " + QuorumConfig.CONTROLLER_QUORUM_VOTERS
                + ": another process runs with node.id " + config.nodeId());
    }

    /**
     * A voter whose {@code controller.quorum.voters} differs from the running group's voters (ids
     * and addresses), and is not the list it first started with, is refused: a node must not vote
     * in a group it misdescribes. A node that joins a cluster whose voters changed names them with
     * {@code controller.quorum.bootstrap.servers} instead, and joins as a listener.
     */
    private static void checkSameVoters(QuorumConfig config, RaftPeer peer, QuorumMembers members) {
        Map<String, String> theirs = new TreeMap<>();
        members.voters().forEach((id, a) -> theirs.put(String.valueOf(id), a));
        Map<String, String> ours = new TreeMap<>();
        config.voters().forEach((id, a) -> ours.put(String.valueOf(id), address(a)));
        if (!theirs.equals(ours)) {
            throw new ClusterMembershipException("node " + config.nodeId() + " is configured with "
                    + QuorumConfig.CONTROLLER_QUORUM_VOTERS + " " + ours + ", but voter " + peer.getId() + " at "
                    + peer.getAddress() + " has the voters " + theirs + " in cluster " + config.clusterId()
                    + ": every node must name the same voters");
        }
    }
}
