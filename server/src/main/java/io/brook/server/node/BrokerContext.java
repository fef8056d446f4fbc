package io.brook.server.node;

import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.txn.TransactionCoordinator;
import io.brook.server.config.BrokerConfig;
import io.brook.server.config.Listener;
import io.brook.server.metrics.BrokerMetrics;
import io.brook.server.time.Timer;
import io.brook.server.topic.Topics;
import java.util.Map;

/**
 * What request handlers share: the configuration, this node's identity and address, the topics,
 * the producer-id allocator, the group and transaction coordinators, the timer of delayed
 * operations, the metrics and who leads each partition ({@link LeaderHints}). Built once
 * the listener is bound (the advertised address may depend on the bound port) and immutable; the
 * components it points to are thread-safe themselves.
 */
public final class BrokerContext {

    private final BrokerConfig config;
    private final String clusterId;
    private final Listener advertised;
    private final Map<String, Listener> advertisedByListener;
    private final Topics topics;
    private final ProducerIdAllocator producerIds;
    private final GroupCoordinator groups;
    private final TransactionCoordinator transactions;
    private final Timer timer;
    private final BrokerMetrics metrics;
    private final LeaderHints leaderHints;
    private final PartitionLeadership leadership;
    private final ClusterView cluster;

    /** A context whose metrics are kept but not published (handler tests). */
    public BrokerContext(BrokerConfig config, String clusterId, Listener advertised, Topics topics,
            ProducerIdAllocator producerIds, GroupCoordinator groups, TransactionCoordinator transactions, Timer timer) {
        this(config, clusterId, advertised, topics, producerIds, groups, transactions, timer, new BrokerMetrics(false));
    }

    public BrokerContext(BrokerConfig config, String clusterId, Listener advertised, Topics topics,
            ProducerIdAllocator producerIds, GroupCoordinator groups, TransactionCoordinator transactions, Timer timer,
            BrokerMetrics metrics) {
        this(config, clusterId, Map.of(advertised.name(), advertised), topics, producerIds, groups, transactions, timer,
                metrics);
    }

    /** {@code advertised}: each listener's address for clients, by listener name, the default one first. */
    public BrokerContext(BrokerConfig config, String clusterId, Map<String, Listener> advertised, Topics topics,
            ProducerIdAllocator producerIds, GroupCoordinator groups, TransactionCoordinator transactions, Timer timer,
            BrokerMetrics metrics) {
        this(config, clusterId, advertised, topics, producerIds, groups, transactions, timer, metrics, null);
    }

    /** {@code cluster}: the cluster this node is a member of, null for a single node. */
    public BrokerContext(BrokerConfig config, String clusterId, Map<String, Listener> advertised, Topics topics,
            ProducerIdAllocator producerIds, GroupCoordinator groups, TransactionCoordinator transactions, Timer timer,
            BrokerMetrics metrics, ClusterView cluster) {
        this.metrics = metrics;
        this.config = config;
        this.clusterId = clusterId;
        this.advertisedByListener = Map.copyOf(advertised);
        this.advertised = advertised.values().iterator().next();
        this.topics = topics;
        this.producerIds = producerIds;
        this.groups = groups;
        this.transactions = transactions;
        this.timer = timer;
        this.cluster = cluster;
        this.leadership = cluster != null ? cluster
                : new SingleNodeLeadership(topics, config.nodeId(), this.advertised, advertisedByListener);
        this.leaderHints = new LeaderHints(leadership);
    }

    public BrokerConfig config() {
        return config;
    }

    public int nodeId() {
        return config.nodeId();
    }

    public String clusterId() {
        return clusterId;
    }

    /** The address clients of the default (first) listener are told to use. */
    public Listener advertised() {
        return advertised;
    }

    /** The address clients that came in on listener {@code listenerName} are told to use (Kafka: same listener). */
    public Listener advertised(String listenerName) {
        Listener l = advertisedByListener.get(listenerName);
        return l != null ? l : advertised;
    }

    public Topics topics() {
        return topics;
    }

    public ProducerIdAllocator producerIds() {
        return producerIds;
    }

    /** The group coordinator; null only where a test runs handlers without one. */
    public GroupCoordinator groups() {
        return groups;
    }

    /** The transaction coordinator; null only where a test runs handlers without one. */
    public TransactionCoordinator transactions() {
        return transactions;
    }

    /** The broker's metrics: handlers mark the topics' meters here. */
    public BrokerMetrics metrics() {
        return metrics;
    }

    /** Who leads each partition, for the leader hints of KIP-951. */
    public LeaderHints leaderHints() {
        return leaderHints;
    }

    /** Who leads each partition: this node all of them on a single node, the metadata image in a cluster. */
    public PartitionLeadership leadership() {
        return leadership;
    }

    /** The cluster this node belongs to (docs/cluster.md), or null on a single node. */
    public ClusterView cluster() {
        return cluster;
    }

    /** Deadlines of delayed operations (long-poll fetches, acks=all time-outs). */
    public Timer timer() {
        return timer;
    }
}
