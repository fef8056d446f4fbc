package io.brook.cluster.member;

import io.brook.cluster.raft.MetadataQuorumNode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;

/**
 * A {@link QuorumStatus} from a node's Ratis division: the leader and term it knows, its commit
 * index as the high watermark, and each voter's log end (its last log index: on the leader each
 * follower's match index, on any node its own) and last contact, -1 where this node does not
 * know. Ratis keeps no "caught up" time, so {@code lastCaughtUpTimestamp} is -1 except for the
 * leader itself. The observers are the group's Ratis listeners (broker-only nodes and removed
 * voters), reported the same way: their log end as the leader knows it, or a listener's own.
 */
final class QuorumStatuses {
    private QuorumStatuses() {
    }

    static QuorumStatus of(MetadataQuorumNode node) {
        RaftServer.Division division = node.division();
        if (division == null) {
            return new QuorumStatus(-1, -1, -1, List.of(), List.of());
        }
        DivisionInfo info = division.getInfo();
        long now = System.currentTimeMillis();
        RaftPeerId leader = info.getLeaderId();
        Map<String, long[]> followers = new HashMap<>();
        if (info.isLeader()) {
            RoleInfoProto role = info.getRoleInfoProto();
            long[] next = info.getFollowerNextIndices();
            List<ServerRpcProto> rpcs = role.getLeaderInfo().getFollowerInfoList();
            // both lists come from the leader's log appenders, in the same order
            for (int i = 0; i < rpcs.size(); i++) {
                long match = i < next.length ? next[i] - 1 : -1;
                followers.put(rpcs.get(i).getId().getId().toStringUtf8(),
                        new long[] {match, now - rpcs.get(i).getLastRpcElapsedTimeMs()});
            }
        }
        String selfId = division.getId().toString();
        List<QuorumStatus.Replica> voters = replicas(division, info, followers, selfId,
                division.getRaftConf().getCurrentPeers(RaftPeerRole.FOLLOWER), now);
        List<QuorumStatus.Replica> observers = replicas(division, info, followers, selfId,
                division.getRaftConf().getCurrentPeers(RaftPeerRole.LISTENER), now);
        return new QuorumStatus(leader == null ? -1 : Integer.parseInt(leader.toString()), info.getCurrentTerm(),
                division.getRaftLog().getLastCommittedIndex(), voters, observers);
    }

    private static List<QuorumStatus.Replica> replicas(RaftServer.Division division, DivisionInfo info,
            Map<String, long[]> followers, String selfId, Collection<RaftPeer> peers, long now) {
        List<QuorumStatus.Replica> out = new ArrayList<>();
        for (RaftPeer peer : peers) {
            String id = peer.getId().toString();
            long logEnd = -1;
            long lastFetch = -1;
            long caughtUp = -1;
            if (id.equals(selfId)) {
                TermIndex last = division.getRaftLog().getLastEntryTermIndex();
                logEnd = last == null ? -1 : last.getIndex();
                if (info.isLeader()) {
                    lastFetch = now;
                    caughtUp = now;
                }
            } else if (followers.containsKey(id)) {
                logEnd = followers.get(id)[0];
                lastFetch = followers.get(id)[1];
            }
            out.add(new QuorumStatus.Replica(Integer.parseInt(id), logEnd, lastFetch, caughtUp));
        }
        out.sort((a, b) -> Integer.compare(a.nodeId(), b.nodeId()));
        return out;
    }
}
