package io.brook.server;

import io.brook.coordinator.group.GroupCoordinator;
import io.netty.util.Timer;
import java.util.concurrent.Executor;

/**
 * What request handlers share: the configuration, this node's identity and address, and (as
 * they are added) the topic registry and the logs. Thread-safe: fields are final or volatile and
 * the components they point to are thread-safe themselves.
 */
final class BrokerContext {

    private final BrokerConfig config;
    private final String clusterId;
    private final TopicManager topics;
    private final ProducerIdAllocator producerIds;
    private final FetchWaiters fetchWaiters;
    private final Executor ioExecutor;
    private final Timer timer;
    private volatile Listener advertised;
    private volatile GroupCoordinator groups;

    BrokerContext(BrokerConfig config, String clusterId, TopicManager topics, ProducerIdAllocator producerIds,
            Executor ioExecutor, Timer timer, FetchWaiters fetchWaiters) {
        this.fetchWaiters = fetchWaiters;
        this.config = config;
        this.clusterId = clusterId;
        this.topics = topics;
        this.producerIds = producerIds;
        this.ioExecutor = ioExecutor;
        this.timer = timer;
    }

    FetchWaiters fetchWaiters() {
        return fetchWaiters;
    }

    /** The pool that runs request handlers; also where delayed operations do their work. */
    Executor ioExecutor() {
        return ioExecutor;
    }

    /** Deadlines of delayed operations (Netty's hashed wheel; a few ms of resolution). */
    Timer timer() {
        return timer;
    }

    ProducerIdAllocator producerIds() {
        return producerIds;
    }

    TopicManager topics() {
        return topics;
    }

    BrokerConfig config() {
        return config;
    }

    int nodeId() {
        return config.nodeId();
    }

    String clusterId() {
        return clusterId;
    }

    /** The address clients are told to use; known once the listener is bound. */
    Listener advertised() {
        return advertised;
    }

    void advertised(Listener listener) {
        this.advertised = listener;
    }

    /** The group coordinator; null only in tests that run the network layer without a broker. */
    GroupCoordinator groups() {
        return groups;
    }

    void groups(GroupCoordinator coordinator) {
        this.groups = coordinator;
    }
}
