package io.brook.server;

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
    private volatile Listener advertised;

    BrokerContext(BrokerConfig config, String clusterId, TopicManager topics, ProducerIdAllocator producerIds) {
        this.config = config;
        this.clusterId = clusterId;
        this.topics = topics;
        this.producerIds = producerIds;
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
}
