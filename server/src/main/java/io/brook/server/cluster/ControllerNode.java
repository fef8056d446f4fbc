package io.brook.server.cluster;

import io.brook.cluster.member.BrokerRegistration;
import io.brook.cluster.member.ClusterMember;
import io.brook.cluster.member.RatisClusterMember;
import io.brook.cluster.raft.ClusterMembershipException;
import io.brook.cluster.raft.QuorumConfig;
import io.brook.server.config.BrokerConfig;
import io.brook.server.config.Listener;
import io.brook.server.node.BrokerMeta;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;

/**
 * A node with {@code process.roles=controller} alone, Kafka's dedicated controller
 * (docs/cluster.md, section 6c): a voter of the metadata quorum, and the controller while it is
 * the Ratis leader, and nothing else. It never registers as a broker, so placement and elections
 * never give it a partition; it runs no group or transaction coordinator, keeps no partition log
 * and binds no Kafka listener: its controller listener carries the quorum's Raft traffic and the
 * controller channel (Ratis). Clients and Kafka's tools talk to the brokers, which answer for the
 * cluster (DescribeQuorum included) by asking the controller. Its HTTP admin listener
 * ({@code brook.http.listener}, as a broker's) serves Kafka's controller gauges on
 * {@code /metrics}, and {@code /health} and {@code /ready}; the same gauges are MBeans
 * ({@link ControllerNodeMetrics}).
 *
 * <p>Its data directory holds what a broker's holds of the quorum: {@code meta/meta.properties}
 * (the node and cluster ids, and the lock that keeps a second process off the directory) and the
 * metadata log in {@code meta/__cluster_metadata-0}.
 */
public final class ControllerNode implements AutoCloseable {

    private final BrokerMeta meta;
    private final ClusterMember member;
    private final ControllerNodeMetrics metrics;

    private ControllerNode(BrokerMeta meta, ClusterMember member, ControllerNodeMetrics metrics) {
        this.meta = meta;
        this.member = member;
        this.metrics = metrics;
    }

    /**
     * Starts a controller-only node on {@code settings} (Kafka's KRaft names, as a broker's) with
     * its data in {@code dataDir}; the quorum forms in the background, as on a broker.
     *
     * @throws IllegalArgumentException for settings that are not a controller-only node's, or inconsistent
     * @throws IllegalStateException when the data directory or the quorum belongs to another cluster or node
     */
    public static ControllerNode start(Map<String, String> settings, Path dataDir, Clock clock) throws IOException {
        if (!BrokerConfig.controllerOnly(settings)) {
            throw new IllegalArgumentException("a controller-only node has " + BrokerConfig.PROCESS_ROLES
                    + "=controller, not '" + settings.get(BrokerConfig.PROCESS_ROLES) + "'");
        }
        // not BrokerConfig: it insists on a listener for clients, which this node has none of
        BrokerRegistration session = BrokerRegistration.fromProperties(settings, List.of());
        QuorumConfig q;
        try {
            q = QuorumConfig.fromProperties(settings);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Cluster mode: " + e.getMessage(), e);
        }
        BrokerMeta meta = BrokerMeta.open(dataDir, q.nodeId(), q.clusterId());
        try {
            q = q.withMetadataDir(meta.metaDir().resolve(ClusterMode.METADATA_DIR));
            BrokerRegistration self = new BrokerRegistration(List.of(), null, session.heartbeatIntervalMs(),
                    session.sessionTimeoutMs(), BrokerMeta.directoryIdIn(meta.metaDir()));
            Listener httpListener = BrokerConfig.httpListener(
                    settings.getOrDefault(BrokerConfig.HTTP_LISTENER, BrokerConfig.HTTP_LISTENER_DEFAULT));
            ClusterMember member = RatisClusterMember.start(q, self, clock == null ? Clock.systemUTC() : clock);
            try {
                return new ControllerNode(meta, member, ControllerNodeMetrics.start(httpListener,
                        settings.containsKey(BrokerConfig.HTTP_LISTENER), member));
            } catch (RuntimeException e) {
                try {
                    member.close();
                } catch (IOException | RuntimeException c) {
                    e.addSuppressed(c);
                }
                throw e;
            }
        } catch (ClusterMembershipException e) {
            meta.close();
            throw new IllegalStateException("Cluster mode: " + e.getMessage(), e);
        } catch (IOException | RuntimeException e) {
            meta.close();
            throw e;
        }
    }

    /**
     * The data directory of a controller-only node's settings: {@code log.dirs} (its one entry),
     * else {@code log.dir}, else {@code ./data}, as a broker's.
     */
    public static Path dataDir(Map<String, String> settings) {
        String dirs = settings.get(BrokerConfig.LOG_DIRS);
        if (dirs != null && !dirs.isBlank()) {
            return Path.of(dirs.split(",", -1)[0].trim());
        }
        String dir = settings.get(BrokerConfig.LOG_DIR);
        return Path.of(dir != null && !dir.isBlank() ? dir.trim() : "./data");
    }

    /** This node's id. */
    public int nodeId() {
        return member.nodeId();
    }

    /** The cluster id the nodes share. */
    public String clusterId() {
        return member.clusterId();
    }

    /** The node the quorum has as its leader, so the controller, now; -1 when none is known. */
    public int controllerId() {
        return member.controllerId();
    }

    /** The voters of the metadata quorum and their Raft addresses, as this node knows them. */
    public Map<Integer, String> voters() {
        return member.voterAddresses();
    }

    /** The bound port of the HTTP admin listener, or -1 when there is none. */
    public int httpPort() {
        return metrics.httpPort();
    }

    /**
     * Stops the HTTP admin listener, leaves the quorum (a voter's stop: the others elect another
     * controller if it led) and releases the directory.
     */
    @Override
    public void close() throws IOException {
        try {
            metrics.close();
        } finally {
            try {
                member.close();
            } finally {
                meta.close();
            }
        }
    }
}
