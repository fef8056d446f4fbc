package io.brook.server.cluster;

import io.brook.cluster.member.BrokerRegistration;
import io.brook.cluster.member.ClusterMember;
import io.brook.cluster.member.RatisClusterMember;
import io.brook.cluster.metadata.Endpoint;
import io.brook.cluster.raft.QuorumConfig;
import java.io.IOException;
import java.time.Clock;
import java.util.List;
import java.util.UUID;

/**
 * The real {@link ClusterMember}: this node's Ratis quorum node and broker registration, which
 * reports the data directory's id to the controller.
 */
final class RatisMembers {

    private RatisMembers() {
    }

    static ClusterMember start(QuorumConfig quorum, List<Endpoint> listeners, String rack, int heartbeatIntervalMs,
            int sessionTimeoutMs, UUID directoryId, Clock clock) throws IOException {
        return RatisClusterMember.start(quorum, new BrokerRegistration(listeners, rack, heartbeatIntervalMs,
                sessionTimeoutMs, directoryId), clock);
    }
}
