package io.brook.server.cluster;

import io.brook.cluster.member.ClusterMember;
import io.brook.cluster.metadata.Endpoint;
import io.brook.cluster.raft.QuorumConfig;
import java.io.IOException;
import java.time.Clock;
import java.util.List;

/**
 * Starts this node's {@link ClusterMember}: its place in the metadata quorum and its broker
 * registration (the listeners clients reach it on, its rack, how often it heartbeats and after
 * how long without one the controller fences it). The real one runs Ratis; tests give members
 * over an in-memory metadata log.
 */
@FunctionalInterface
public interface MemberFactory {

    ClusterMember start(QuorumConfig quorum, List<Endpoint> listeners, String rack, int heartbeatIntervalMs,
            int sessionTimeoutMs, Clock clock) throws IOException;
}
