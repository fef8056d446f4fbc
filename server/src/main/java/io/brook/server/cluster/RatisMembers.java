package io.brook.server.cluster;

import io.brook.cluster.member.ClusterMember;
import io.brook.cluster.metadata.Endpoint;
import io.brook.cluster.raft.QuorumConfig;
import java.time.Clock;
import java.util.List;

/** The real {@link ClusterMember}: this node's Ratis quorum node and broker registration. */
final class RatisMembers {

    private RatisMembers() {
    }

    static ClusterMember start(QuorumConfig quorum, List<Endpoint> listeners, String rack, int heartbeatIntervalMs,
            int sessionTimeoutMs, Clock clock) {
        throw new IllegalStateException("cluster mode needs the Ratis cluster member, which this build does not have");
    }
}
