package io.brook.cluster.raft;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftConfiguration;

/**
 * The members of the metadata group's Ratis configuration: the voters (Ratis followers, one of
 * them the leader) and the listeners (nodes that receive the committed log but never vote:
 * broker-only nodes, and voters removed by RemoveRaftVoter), each by node id with its Raft
 * address ({@code host:port}).
 */
public record QuorumMembers(Map<Integer, String> voters, Map<Integer, String> listeners) {

    public QuorumMembers {
        voters = Collections.unmodifiableMap(new TreeMap<>(voters));
        listeners = Collections.unmodifiableMap(new TreeMap<>(listeners));
    }

    /**
     * A group as a voter reports it (Ratis' group info carries the group's peers, not its
     * configuration): listeners are told apart by their startup role, which every listener this
     * code adds carries.
     */
    static QuorumMembers of(RaftGroup group) {
        Map<Integer, String> voters = new TreeMap<>();
        Map<Integer, String> listeners = new TreeMap<>();
        for (RaftPeer p : group.getPeers()) {
            (p.getStartupRole() == RaftPeerRole.LISTENER ? listeners : voters)
                    .put(Integer.parseInt(p.getId().toString()), p.getAddress());
        }
        return new QuorumMembers(voters, listeners);
    }

    static QuorumMembers of(RaftConfiguration conf) {
        return new QuorumMembers(byIdPeers(conf.getCurrentPeers(RaftPeerRole.FOLLOWER)),
                byIdPeers(conf.getCurrentPeers(RaftPeerRole.LISTENER)));
    }

    private static Map<Integer, String> byIdPeers(Collection<RaftPeer> peers) {
        Map<Integer, String> out = new TreeMap<>();
        for (RaftPeer p : peers) {
            out.put(Integer.parseInt(p.getId().toString()), p.getAddress());
        }
        return out;
    }

    /** Whether {@code nodeId} is a voter or a listener. */
    public boolean contains(int nodeId) {
        return voters.containsKey(nodeId) || listeners.containsKey(nodeId);
    }

    /** These members with {@code nodeId} a listener at {@code address} (no longer a voter). */
    public QuorumMembers withListener(int nodeId, String address) {
        Map<Integer, String> v = new TreeMap<>(voters);
        Map<Integer, String> l = new TreeMap<>(listeners);
        v.remove(nodeId);
        l.put(nodeId, address);
        return new QuorumMembers(v, l);
    }

    /** These members with {@code nodeId} a voter at {@code address} (no longer a listener). */
    public QuorumMembers withVoter(int nodeId, String address) {
        Map<Integer, String> v = new TreeMap<>(voters);
        Map<Integer, String> l = new TreeMap<>(listeners);
        l.remove(nodeId);
        v.put(nodeId, address);
        return new QuorumMembers(v, l);
    }

    List<RaftPeer> voterPeers() {
        return peers(voters, RaftPeerRole.FOLLOWER);
    }

    List<RaftPeer> listenerPeers() {
        return peers(listeners, RaftPeerRole.LISTENER);
    }

    /** Every member as a Ratis peer with its startup role. */
    List<RaftPeer> allPeers() {
        List<RaftPeer> all = new ArrayList<>(voterPeers());
        all.addAll(listenerPeers());
        return all;
    }

    private static List<RaftPeer> peers(Map<Integer, String> members, RaftPeerRole role) {
        List<RaftPeer> out = new ArrayList<>();
        members.forEach((id, address) -> out.add(RaftPeer.newBuilder().setId(RaftPeerId.valueOf(String.valueOf(id)))
                .setAddress(address).setStartupRole(role).build()));
        return out;
    }
}
