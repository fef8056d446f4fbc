package io.brook.server.cluster;

import io.brook.cluster.member.ClusterMember;
import io.brook.cluster.metadata.Endpoint;
import io.brook.cluster.raft.ClusterMembershipException;
import io.brook.cluster.raft.QuorumConfig;
import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.txn.TransactionCoordinator;
import io.brook.server.cluster.interbroker.InterBrokerClient;
import io.brook.server.cluster.interbroker.InterBrokerSettings;
import io.brook.server.cluster.replica.ReplicaFetchers;
import io.brook.server.cluster.replica.ReplicaReports;
import io.brook.server.config.BrokerConfig;
import io.brook.server.config.GroupConfigStore;
import io.brook.server.config.Listener;
import io.brook.server.config.SecurityProtocol;
import io.brook.server.metrics.BrokerMetrics;
import io.brook.server.node.BrokerMeta;
import io.brook.server.node.ClusterAdminException;
import io.brook.server.node.ClusterView;
import io.brook.server.node.GroupCoordinatorSetup;
import io.brook.server.node.ProducerIdAllocator;
import io.brook.server.node.TxnCoordinatorSetup;
import io.brook.server.security.BrokerSecurity;
import io.brook.server.security.InterBrokerLogin;
import io.brook.server.security.LegacySecurityFiles;
import io.brook.server.security.ListenerSecurity;
import io.brook.server.topic.Topics;
import io.brook.wire.protocol.Errors;
import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The one way into cluster mode (docs/cluster.md), used by the broker only when
 * {@code process.roles} is set: a single node never loads this package, the cluster module or
 * Ratis. Starts this node's {@link ClusterMember} (it joins the metadata quorum and registers
 * with the controller in the background: the broker does not wait for a quorum to start), mirrors
 * the metadata image into the local topics, takes producer-id blocks from the controller, and
 * keeps the ACLs, SCRAM credentials, delegation tokens, client quotas and the groups' own settings
 * in the metadata log.
 */
public final class ClusterMode implements AutoCloseable {

    /** Where the metadata log lives: under the broker's meta directory, out of the partition logs' way. */
    static final String METADATA_DIR = "__cluster_metadata-0";

    private final ClusterBroker broker;
    private final InterBrokerClient interBroker;
    private final MetadataLogSecurity security;
    private final boolean controllerRole;

    private ClusterMode(ClusterBroker broker, InterBrokerClient interBroker, MetadataLogSecurity security,
                        boolean controllerRole) {
        this.broker = broker;
        this.interBroker = interBroker;
        this.security = security;
        this.controllerRole = controllerRole;
    }

    /**
     * Starts cluster mode on a started broker's pieces.
     *
     * @param settings the broker's settings as given (Kafka's KRaft names, read by {@link QuorumConfig})
     * @param advertised each bound listener's address for clients: registered with the controller
     * @param groups the group coordinator: from now on it serves the groups of the
     *               {@code __consumer_offsets} partitions this node leads
     * @param factory how the member starts; null for the real one (Ratis)
     * @param loops the broker's event loops, on which the inter-broker client connects to other nodes
     * @param channelClass the socket channel class of their transport
     * @param transactions the transaction coordinator: from now on it serves the transactional ids of
     *                     the {@code __transaction_state} partitions this node leads, and writes the
     *                     markers of partitions other nodes lead through them
     * @param security the broker's security: from now on the cluster's metadata log keeps its ACLs,
     *                 SCRAM credentials, delegation tokens and client quotas
     * @param groupConfigs the groups' own settings ({@link GroupConfigStore#forCluster}): from now on
     *                     kept by the metadata log and given what the image holds after every change
     */
    public static ClusterMode start(BrokerConfig config, Map<String, String> settings, Path metaDir,
            Map<String, Listener> advertised, Topics topics, ProducerIdAllocator producerIds, GroupCoordinator groups,
            Clock clock, MemberFactory factory, EventLoopGroup loops, Class<? extends Channel> channelClass,
            TransactionCoordinator transactions, BrokerSecurity security, GroupConfigStore groupConfigs)
            throws IOException {
        String interBrokerListener = interBrokerListener(config);
        InterBrokerLogin login = interBrokerLogin(config, interBrokerListener);
        QuorumConfig q;
        try {
            q = QuorumConfig.fromProperties(settings);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Cluster mode: " + e.getMessage(), e);
        }
        if (!q.processRoles().contains("broker")) {
            throw new IllegalArgumentException("Cluster mode: node " + q.nodeId() + " has process.roles=controller alone:"
                    + " it runs as a controller-only node (ControllerNode, as bin/brook starts it), not as a broker");
        }
        q = q.withMetadataDir(metaDir.resolve(METADATA_DIR));
        List<Endpoint> endpoints = new ArrayList<>();
        for (Listener l : advertised.values()) {
            endpoints.add(new Endpoint(l.name(), l.host(), l.port()));
        }
        ClusterMember member;
        try {
            String rack = config.string(BrokerConfig.BROKER_RACK);
            int heartbeat = config.intValue(BrokerConfig.BROKER_HEARTBEAT_INTERVAL_MS);
            int session = config.intValue(BrokerConfig.BROKER_SESSION_TIMEOUT_MS);
            Clock c = clock == null ? Clock.systemUTC() : clock;
            member = factory != null ? factory.start(q, endpoints, rack, heartbeat, session, c)
                    : RatisMembers.start(q, endpoints, rack, heartbeat, session, BrokerMeta.directoryIdIn(metaDir), c);
        } catch (ClusterMembershipException e) {
            // a misconfigured node (another cluster's, a node id already running): the operator's message, no trace
            throw new IllegalStateException("Cluster mode: " + e.getMessage(), e);
        }
        MetadataLogSecurity keeper = new MetadataLogSecurity(member, security.authorizer(), security.scram(),
                security.tokens(), security.quotaStore(), groupConfigs, security.bootstrapUsers());
        member.onChange(keeper::refresh);
        keeper.refresh();
        security.keptIn(keeper);
        groupConfigs.keptIn(keeper);
        keeper.writeOnceRegistered(LegacySecurityFiles.in(metaDir));
        ClusterBroker broker = new ClusterBroker(member, topics);
        ListenerSecurity interBrokerSecurity = security.listenerOrNull(interBrokerListener);
        InterBrokerClient interBroker = new InterBrokerClient(loops, channelClass,
                id -> broker.address(id, interBrokerListener), "broker-" + q.nodeId(), InterBrokerSettings.DEFAULTS,
                login, interBrokerSecurity == null ? login::tls : interBrokerSecurity::tls);
        broker.describeQuorumWith(new QuorumDescription(member,
                config.controllerListener(), q.voters()));
        ReplicationThrottle throttle = ReplicationThrottle.of(q.nodeId(), config, topics.configs().dynamic(), topics,
                clock == null ? Clock.systemUTC() : clock);
        broker.throttleWith(throttle);
        broker.replicateWith(new ReplicaFetchers(q.nodeId(), interBroker, topics::log, new ReplicaReports() {
            @Override
            public CompletableFuture<Void> caughtUp(String topic, int partition) {
                return member.replicaCaughtUp(topic, partition);
            }

            @Override
            public CompletableFuture<Void> drained(String topic, int partition) {
                return member.replicaDrained(topic, partition);
            }
        }, throttle::followerDelayMs));
        try {
            producerIds.blocksFrom(broker::producerIdBlock);
            broker.start();
            GroupCoordinatorSetup.follow(groups, broker);
            broker.txnPeers(new InterBrokerTxnPeers(broker, interBroker, transactions.config()::partitionFor));
            TxnCoordinatorSetup.follow(transactions, broker);
        } catch (RuntimeException e) {
            keeper.close();
            interBroker.close();
            broker.close();
            throw e;
        }
        return new ClusterMode(broker, interBroker, keeper, q.processRoles().contains("controller"));
    }

    /**
     * The listener other brokers reach this one on, as Kafka chooses it: {@code inter.broker.listener.name},
     * or else the listener named after {@code security.inter.broker.protocol} (by default PLAINTEXT);
     * setting both is refused. It must be one of {@code listeners}; on a TLS or SASL listener the
     * nodes log in to each other ({@link #interBrokerLogin}).
     */
    static String interBrokerListener(BrokerConfig config) {
        String name = config.string(BrokerConfig.INTER_BROKER_LISTENER_NAME);
        boolean named = name != null && !name.isBlank();
        if (named && config.isExplicit(BrokerConfig.SECURITY_INTER_BROKER_PROTOCOL)) {
            throw new IllegalArgumentException("Cluster mode: set " + BrokerConfig.INTER_BROKER_LISTENER_NAME + " or "
                    + BrokerConfig.SECURITY_INTER_BROKER_PROTOCOL + ", not both (both name the inter-broker listener)");
        }
        name = named ? name.trim().toUpperCase(java.util.Locale.ROOT)
                : config.string(BrokerConfig.SECURITY_INTER_BROKER_PROTOCOL);
        boolean bound = false;
        for (Listener l : config.listeners().bound()) {
            bound |= l.name().equalsIgnoreCase(name);
        }
        if (!bound) {
            throw new IllegalArgumentException("Cluster mode: the inter-broker listener " + name + " ("
                    + (named ? BrokerConfig.INTER_BROKER_LISTENER_NAME : "named after "
                            + BrokerConfig.SECURITY_INTER_BROKER_PROTOCOL + ", PLAINTEXT by default")
                    + ") is not one of the listeners " + config.listeners().bound() + "; other brokers connect to it");
        }
        return name;
    }

    /**
     * How this node logs in to the others' inter-broker listener {@code name}: its protocol's TLS
     * (the listener's trust and key stores) and SASL ({@code sasl.mechanism.inter.broker.protocol}
     * with the credentials of that mechanism's JAAS configuration on the listener, or, for
     * OAUTHBEARER, its tokens), as Kafka's brokers do; a setting that cannot work stops the start.
     */
    static InterBrokerLogin interBrokerLogin(BrokerConfig config, String name) {
        SecurityProtocol protocol = config.listeners().protocol(name);
        try {
            return InterBrokerLogin.of(config.securitySettings(), name,
                    protocol == null ? SecurityProtocol.PLAINTEXT : protocol);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Cluster mode: the inter-broker listener " + name + ": " + e.getMessage(),
                    e);
        }
    }

    /**
     * Registers Kafka's controller gauges in {@code metrics} if this node has the controller role
     * (a voter), as Kafka has them on its controllers; a broker-only node has none.
     */
    public void registerControllerGauges(BrokerMetrics metrics) {
        if (controllerRole) {
            metrics.controller(broker::controllerCounts);
        }
    }

    /** What the handlers see of the cluster. */
    public ClusterView view() {
        return broker;
    }

    /**
     * Creates a topic of the broker's default replication through the controller (the embedded
     * API); false when it exists. Waits for the decision.
     */
    public boolean createTopic(String name, int partitions) {
        try {
            broker.createTopic(name, partitions, 1, Map.of()).join();
            return true;
        } catch (java.util.concurrent.CompletionException e) {
            ClusterAdminException a = ClusterBroker.translate(e);
            if (a.error() == Errors.TOPIC_ALREADY_EXISTS) {
                return false;
            }
            throw new IllegalStateException("Cannot create topic " + name + ": " + a.error() + ": " + a.getMessage(), a);
        }
    }

    /** The cluster id the nodes share. */
    public String clusterId() {
        return broker.clusterId();
    }

    /** Leaves: stops heartbeating (the controller fences this node) and the metadata quorum node. */
    @Override
    public void close() {
        close(true);
    }

    /**
     * Leaves the cluster; with {@code controlled} false like a crashed node (no controlled
     * shutdown: the controller fences it when its session times out).
     */
    public void close(boolean controlled) {
        security.close();
        interBroker.close();
        broker.close(controlled);
    }
}
