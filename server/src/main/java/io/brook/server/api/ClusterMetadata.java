package io.brook.server.api;

import io.brook.server.node.BrokerContext;
import io.brook.server.node.ClusterView;
import io.brook.server.node.ClusterView.BrokerNode;
import io.brook.server.node.ClusterView.PartitionState;
import io.brook.server.node.ClusterView.TopicState;
import io.brook.server.topic.TopicNames;
import io.brook.wire.message.MetadataRequest.MetadataRequestTopic;
import io.brook.wire.message.MetadataResponse.MetadataResponseBroker;
import io.brook.wire.message.MetadataResponse.MetadataResponsePartition;
import io.brook.wire.message.MetadataResponse.MetadataResponseTopic;
import io.brook.wire.protocol.Errors;
import io.brook.wire.protocol.LogSafe;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Metadata's answer in cluster mode (docs/cluster.md, section 6), from the metadata image rather
 * than the local topics: every unfenced broker with its endpoint on the client's listener and its
 * rack, each partition's leader, leader epoch, replicas, ISR and offline replicas, LEADER_NOT_AVAILABLE
 * for a partition without a leader. Auto-creation asks the controller and, as Kafka, answers
 * LEADER_NOT_AVAILABLE for the topics it asked for: the client asks again.
 */
final class ClusterMetadata {

    private static final Logger LOG = LoggerFactory.getLogger(ClusterMetadata.class);
    private static final UUID ZERO_UUID = new UUID(0, 0);

    private ClusterMetadata() {
    }

    static List<MetadataResponseBroker> brokers(ClusterView cluster, String listenerName) {
        List<MetadataResponseBroker> out = new ArrayList<>();
        for (BrokerNode b : cluster.brokers(listenerName)) {
            out.add(new MetadataResponseBroker().nodeId(b.id()).host(b.host()).port(b.port()).rack(b.rack()));
        }
        return out;
    }

    /**
     * Asks the controller for the missing topics among {@code asked}; returns the names asked for.
     * A topic already being asked for ({@code inFlight}, from an earlier request) is not asked for
     * again, as Kafka's broker does: a client that repeats Metadata every millisecond until the
     * topic has a leader sends one controller request, not one per Metadata.
     */
    static Set<String> autoCreate(BrokerContext broker, List<MetadataRequestTopic> asked, Set<String> inFlight) {
        ClusterView cluster = broker.cluster();
        int partitions = broker.config().numPartitions();
        int max = MetadataHandler.creatable(partitions);
        Set<String> names = new LinkedHashSet<>();
        for (MetadataRequestTopic want : asked) {
            String name = want.name();
            if (names.size() < max && name != null && TopicNames.invalidNameReason(name) == null
                    && !TopicNames.isInternal(name) && cluster.topic(name) == null) {
                names.add(name);
            }
        }
        for (String name : names) {
            if (!inFlight.add(name)) {
                continue;
            }
            CompletableFuture<Void> created;
            try {
                created = cluster.createTopic(name, partitions, 1, Map.of());
            } catch (RuntimeException e) {
                created = CompletableFuture.failedFuture(e); // a node shutting down: a later request may ask again
            }
            created.whenComplete((v, e) -> {
                inFlight.remove(name);
                if (e != null) {
                    LOG.debug("Auto-creation of topic {} failed: {}", LogSafe.escape(name), e.getMessage());
                }
            });
        }
        return names;
    }

    static MetadataResponseTopic lookup(ClusterView cluster, MetadataRequestTopic want, Set<String> creating,
            boolean withOps, short version) {
        String name = want.name();
        if (name == null) {
            UUID id = want.topicId();
            TopicState t = id == null || id.equals(ZERO_UUID) ? null : cluster.topic(id);
            if (t == null) {
                return new MetadataResponseTopic().errorCode(Errors.UNKNOWN_TOPIC_ID.code())
                        .name(version >= 12 ? null : "")
                        .topicId(id == null ? ZERO_UUID : id);
            }
            return describe(t, withOps);
        }
        if (TopicNames.invalidNameReason(name) != null) {
            return new MetadataResponseTopic().errorCode(Errors.INVALID_TOPIC_EXCEPTION.code()).name(name);
        }
        TopicState t = cluster.topic(name);
        if (t == null) {
            Errors e = creating.contains(name) ? Errors.LEADER_NOT_AVAILABLE : Errors.UNKNOWN_TOPIC_OR_PARTITION;
            return new MetadataResponseTopic().errorCode(e.code()).name(name);
        }
        return describe(t, withOps);
    }

    static MetadataResponseTopic describe(TopicState t, boolean withOps) {
        List<MetadataResponsePartition> parts = new ArrayList<>(t.partitions().size());
        for (PartitionState p : t.partitions()) {
            parts.add(new MetadataResponsePartition()
                    .errorCode((p.leader() < 0 ? Errors.LEADER_NOT_AVAILABLE : Errors.NONE).code())
                    .partitionIndex(p.partition())
                    .leaderId(p.leader())
                    .leaderEpoch(p.leaderEpoch())
                    .replicaNodes(p.replicas())
                    .isrNodes(p.isr())
                    .offlineReplicas(p.offlineReplicas()));
        }
        MetadataResponseTopic topic = new MetadataResponseTopic()
                .errorCode(Errors.NONE.code())
                .name(t.name())
                .topicId(t.id())
                .isInternal(TopicNames.isInternal(t.name()))
                .partitions(parts);
        if (withOps) {
            topic.topicAuthorizedOperations(MetadataHandler.TOPIC_OPERATIONS);
        }
        return topic;
    }
}
