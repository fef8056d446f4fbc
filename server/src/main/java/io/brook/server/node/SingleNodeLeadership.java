package io.brook.server.node;

import io.brook.server.config.Listener;
import io.brook.server.node.LeaderHints.Leader;
import io.brook.server.topic.Topic;
import io.brook.server.topic.Topics;
import io.brook.wire.protocol.Errors;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Leadership on a single node: this node leads every partition of every topic at leader epoch 0,
 * and nothing ever changes hands.
 */
final class SingleNodeLeadership implements PartitionLeadership {

    /** This node's only leader epoch. */
    static final int LEADER_EPOCH = 0;

    private final Topics topics;
    private final int nodeId;
    private final Listener advertised;
    private final Map<String, Listener> advertisedByListener;

    SingleNodeLeadership(Topics topics, int nodeId, Listener advertised, Map<String, Listener> advertisedByListener) {
        this.topics = topics;
        this.nodeId = nodeId;
        this.advertised = advertised;
        this.advertisedByListener = advertisedByListener;
    }

    @Override
    public Set<Integer> ledPartitions(String topic) {
        Topic t = topic == null ? null : topics.get(topic);
        Set<Integer> out = new TreeSet<>();
        for (int p = 0; t != null && p < t.partitions(); p++) {
            out.add(p);
        }
        return out;
    }

    @Override
    public void onChange(Runnable listener) {
        // nothing changes hands on a single node
    }

    @Override
    public Leader leaderOf(String topic, int partition, String listenerName) {
        Topic t = topic == null ? null : topics.get(topic);
        if (t == null || partition < 0 || partition >= t.partitions()) {
            return Leader.UNKNOWN;
        }
        Listener l = listenerName == null ? null : advertisedByListener.get(listenerName);
        if (l == null) {
            l = advertised;
        }
        return new Leader(nodeId, LEADER_EPOCH, l.host(), l.port(), null);
    }

    @Override
    public Errors check(String topic, int partition, int currentLeaderEpoch) {
        return PartitionLeadership.checkEpoch(LEADER_EPOCH, currentLeaderEpoch);
    }

    @Override
    public int leaderEpoch(String topic, int partition) {
        return LEADER_EPOCH;
    }
}
