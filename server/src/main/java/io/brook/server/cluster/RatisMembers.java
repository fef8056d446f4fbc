package io.brook.server.cluster;

import io.brook.cluster.member.BrokerRegistration;
import io.brook.cluster.member.ClusterMember;
import io.brook.cluster.member.RatisClusterMember;
import io.brook.cluster.metadata.Endpoint;
import io.brook.cluster.raft.QuorumConfig;
import java.io.IOException;
import java.time.Clock;
import java.util.List;

/** The real {@link ClusterMember}: this node's Ratis quorum node and broker registration. */
final class RatisMembers {

    private RatisMembers() {
    }

    static ClusterMember start(QuorumConfig quorum, List<Endpoint> listeners, String rack, int heartbeatIntervalMs,
            int sessionTimeoutMs, Clock clock) throws IOException {
        return RatisClusterMember.start(quorum, new BrokerRegistration(listeners, rack, heartbeatIntervalMs,
                sessionTimeoutMs), clock);
    }
}
