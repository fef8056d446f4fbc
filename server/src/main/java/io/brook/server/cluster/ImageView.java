package io.brook.server.cluster;

import io.brook.cluster.metadata.BrokerInfo;
import io.brook.cluster.metadata.ConfigResource;
import io.brook.cluster.metadata.MetadataImage;
import io.brook.cluster.metadata.MetadataRecord;
import io.brook.cluster.metadata.PartitionInfo;
import io.brook.cluster.metadata.TopicInfo;
import io.brook.server.metrics.ControllerCounts;
import io.brook.server.node.ClusterView.PartitionState;
import io.brook.server.node.ClusterView.Reassignment;
import io.brook.server.node.ClusterView.TopicState;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * An immutable copy of the metadata image as of one applied index, shaped for the broker: the
 * brokers, and each topic with its partitions (offline replicas worked out) and config overrides.
 * Taken on the cluster's own thread after each change and published whole, so that request
 * handlers read one consistent state without the state machine's lock.
 */
final class ImageView {

    static final ImageView EMPTY = new ImageView(-1, Map.of(), Map.of(), Map.of(), -1, List.of());

    final long appliedIndex;
    final Map<Integer, BrokerInfo> brokers;
    final Map<String, TopicState> topicsByName;
    final Map<UUID, TopicState> topicsById;
    final int nodeId;
    /** The partitions being moved, by topic name and partition. */
    final List<Reassignment> reassignments;
    /** The same moves, by topic name, then partition. */
    private final Map<String, Map<Integer, Reassignment>> moves;

    private ImageView(long appliedIndex, Map<Integer, BrokerInfo> brokers, Map<String, TopicState> topicsByName,
            Map<UUID, TopicState> topicsById, int nodeId, List<Reassignment> reassignments) {
        this.appliedIndex = appliedIndex;
        this.brokers = brokers;
        this.topicsByName = topicsByName;
        this.topicsById = topicsById;
        this.nodeId = nodeId;
        this.reassignments = reassignments;
        Map<String, Map<Integer, Reassignment>> byTopic = new TreeMap<>();
        for (Reassignment r : reassignments) {
            byTopic.computeIfAbsent(r.topic(), k -> new TreeMap<>()).put(r.partition(), r);
        }
        this.moves = byTopic;
    }

    /** Copies {@code image} (read under the state machine's lock) as of {@code appliedIndex}. */
    static ImageView of(MetadataImage image, long appliedIndex, int nodeId) {
        Map<Integer, BrokerInfo> brokers = new TreeMap<>(image.brokers());
        Map<String, TopicState> byName = new TreeMap<>();
        Map<UUID, TopicState> byId = new TreeMap<>();
        List<Reassignment> moving = new ArrayList<>();
        for (TopicInfo t : image.topics().values()) {
            List<PartitionState> parts = new ArrayList<>(t.partitions().size());
            for (Map.Entry<Integer, PartitionInfo> e : t.partitions().entrySet()) {
                PartitionInfo p = e.getValue();
                if (p.reassigning()) {
                    moving.add(new Reassignment(t.name(), e.getKey(), p.replicas(), p.addingReplicas(),
                            p.removingReplicas()));
                }
                List<Integer> offline = new ArrayList<>();
                for (int r : p.replicas()) {
                    BrokerInfo b = brokers.get(r);
                    if (b == null || b.fenced()) {
                        offline.add(r);
                    }
                }
                parts.add(new PartitionState(e.getKey(), p.leader(), p.leaderEpoch(), p.replicas(), p.isr(),
                        List.copyOf(offline)));
            }
            Map<String, String> configs = Map.copyOf(
                    image.configs(new ConfigResource(MetadataRecord.RESOURCE_TOPIC, t.name())));
            TopicState ts = new TopicState(t.name(), t.id(), List.copyOf(parts), configs);
            byName.put(t.name(), ts);
            byId.put(t.id(), ts);
        }
        return new ImageView(appliedIndex, Collections.unmodifiableMap(brokers), Collections.unmodifiableMap(byName),
                Collections.unmodifiableMap(byId), nodeId, sorted(moving));
    }

    private static List<Reassignment> sorted(List<Reassignment> moving) {
        moving.sort(Comparator.comparing(Reassignment::topic).thenComparingInt(Reassignment::partition));
        return List.copyOf(moving);
    }

    /** A partition's state, or null when there is no such topic or partition. */
    PartitionState partition(String topic, int partition) {
        TopicState t = topic == null ? null : topicsByName.get(topic);
        if (t == null || partition < 0 || partition >= t.partitions().size()) {
            return null;
        }
        PartitionState p = t.partitions().get(partition);
        return p.partition() == partition ? p : null;
    }

    /** The partitions of {@code t} whose replicas hold this node: those it keeps a log for. */
    Set<Integer> hosted(TopicState t) {
        Set<Integer> out = new TreeSet<>();
        for (PartitionState p : t.partitions()) {
            if (p.replicas().contains(nodeId)) {
                out.add(p.partition());
            }
        }
        return out;
    }

    /** The move under way of a partition, or null. */
    Reassignment moving(String topic, int partition) {
        Map<Integer, Reassignment> m = topic == null ? null : moves.get(topic);
        return m == null ? null : m.get(partition);
    }

    /**
     * Whether the move of a partition has completed but its new leader still reads the log of the
     * former one (docs/cluster.md, section 6a): no replica is being added, some are being removed.
     */
    static boolean completing(Reassignment m) {
        return m != null && m.adding().isEmpty() && !m.removing().isEmpty();
    }

    /** Whether this node leads {@code p} but still drains its former leader: it does not serve it yet. */
    boolean draining(String topic, PartitionState p) {
        return p.leader() == nodeId && completing(moving(topic, p.partition()));
    }

    /** Whether this node led {@code p} until a move, and its new leader reads this node's log to its end. */
    boolean drainedHere(String topic, PartitionState p) {
        Reassignment m = moving(topic, p.partition());
        return p.leader() != nodeId && completing(m) && m.removing().contains(nodeId);
    }

    /** The partitions of {@code topic} this node leads and serves (not those it still drains). */
    Set<Integer> led(String topic) {
        TopicState t = topic == null ? null : topicsByName.get(topic);
        Set<Integer> out = new TreeSet<>();
        if (t != null) {
            for (PartitionState p : t.partitions()) {
                if (p.leader() == nodeId && !draining(t.name(), p)) {
                    out.add(p.partition());
                }
            }
        }
        return Collections.unmodifiableSet(out);
    }

    /**
     * Kafka's controller gauges over this image: brokers unfenced and fenced, topics, partitions,
     * and partitions without a leader; {@code activeController} says whether this node leads the
     * quorum.
     */
    ControllerCounts controllerCounts(boolean activeController) {
        int fenced = 0;
        for (BrokerInfo b : brokers.values()) {
            if (b.fenced()) {
                fenced++;
            }
        }
        int partitions = 0;
        int offline = 0;
        for (TopicState t : topicsByName.values()) {
            for (PartitionState p : t.partitions()) {
                partitions++;
                if (p.leader() < 0) {
                    offline++;
                }
            }
        }
        return new ControllerCounts(activeController ? 1 : 0, brokers.size() - fenced, fenced, topicsByName.size(),
                partitions, offline);
    }
}
