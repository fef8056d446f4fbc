package io.brook.server.node;

import io.brook.wire.message.FetchResponse;
import io.brook.wire.message.ProduceResponse;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * KIP-951 leader discovery: a Produce (v10+) or Fetch (v16+) partition answered
 * NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH also carries the partition's current leader and
 * leader epoch, and the response lists the endpoints of the leaders it names, so that the client
 * moves to the new leader without a metadata round trip first. As in Kafka, only those two
 * errors get a hint; a partition whose leader is not known is hinted as leader -1, epoch -1, and
 * adds no endpoint.
 *
 * <p>Who leads comes from {@link PartitionLeadership}: on a single node this node leads every
 * partition at leader epoch 0, and what answers those errors is a fetch from a follower (this node
 * has none, see the fetch handler), whose answer, as Kafka's to followers, carries the current
 * leader but no endpoints. In cluster mode the metadata image names the leader, and the endpoint
 * is the leader's on the listener the client connected on.
 *
 * <p>Responses are walked only when they hold an error ({@link #addTo(ProduceResponse, short)}
 * is called by the handlers only then), so answers without errors cost nothing.
 */
public final class LeaderHints {

    /** The first Produce version with leader hints. */
    public static final short PRODUCE_MIN_VERSION = 10;
    /** The first Fetch version with leader hints. */
    public static final short FETCH_MIN_VERSION = 16;

    /** A partition's leader and that leader's endpoint; {@code nodeId} -1 when unknown. */
    public record Leader(int nodeId, int epoch, String host, int port, String rack) {
        public static final Leader UNKNOWN = new Leader(-1, -1, null, -1, null);
    }

    private final PartitionLeadership leadership;

    public LeaderHints(PartitionLeadership leadership) {
        this.leadership = leadership;
    }

    /** Whether a partition answered with {@code errorCode} gets a leader hint. */
    public static boolean hinted(short errorCode) {
        return errorCode == Errors.NOT_LEADER_OR_FOLLOWER.code() || errorCode == Errors.FENCED_LEADER_EPOCH.code();
    }

    /** The current leader of {@code topic}'s {@code partition}, with its endpoint on the default listener. */
    public Leader leaderOf(String topic, int partition) {
        return leadership.leaderOf(topic, partition, null);
    }

    /** Adds the hints to a Produce answer at {@code version}; topics must carry their names. */
    public void addTo(ProduceResponse response, short version) {
        addTo(response, version, null);
    }

    /** As above, with the leaders' endpoints on {@code listenerName} (null: the default listener). */
    public void addTo(ProduceResponse response, short version, String listenerName) {
        if (version < PRODUCE_MIN_VERSION) {
            return;
        }
        Map<Integer, Leader> leaders = new TreeMap<>();
        for (ProduceResponse.TopicProduceResponse t : response.responses()) {
            for (ProduceResponse.PartitionProduceResponse p : t.partitionResponses()) {
                if (hinted(p.errorCode())) {
                    Leader l = remember(leadership.leaderOf(t.name(), p.index(), listenerName), leaders);
                    p.currentLeader(new ProduceResponse.LeaderIdAndEpoch().leaderId(l.nodeId).leaderEpoch(l.epoch));
                }
            }
        }
        List<ProduceResponse.NodeEndpoint> endpoints = new ArrayList<>(leaders.size());
        for (Leader l : leaders.values()) {
            endpoints.add(new ProduceResponse.NodeEndpoint().nodeId(l.nodeId).host(l.host).port(l.port).rack(l.rack));
        }
        response.nodeEndpoints(endpoints);
    }

    /**
     * Adds the hints to a Fetch answer at {@code version}; topics must carry their names. An
     * answer to a follower ({@code fromFollower}) gets the current leaders but no endpoints, as
     * Kafka answers followers (they know the brokers from the metadata log).
     */
    public void addTo(FetchResponse response, short version, boolean fromFollower) {
        addTo(response, version, fromFollower, null);
    }

    /** As above, with the leaders' endpoints on {@code listenerName} (null: the default listener). */
    public void addTo(FetchResponse response, short version, boolean fromFollower, String listenerName) {
        if (version < FETCH_MIN_VERSION) {
            return;
        }
        Map<Integer, Leader> leaders = new TreeMap<>();
        for (FetchResponse.FetchableTopicResponse t : response.responses()) {
            for (FetchResponse.PartitionData p : t.partitions()) {
                if (hinted(p.errorCode())) {
                    Leader l = remember(leadership.leaderOf(t.topic(), p.partitionIndex(), listenerName), leaders);
                    p.currentLeader(new FetchResponse.LeaderIdAndEpoch().leaderId(l.nodeId).leaderEpoch(l.epoch));
                }
            }
        }
        if (fromFollower) {
            return;
        }
        List<FetchResponse.NodeEndpoint> endpoints = new ArrayList<>(leaders.size());
        for (Leader l : leaders.values()) {
            endpoints.add(new FetchResponse.NodeEndpoint().nodeId(l.nodeId).host(l.host).port(l.port).rack(l.rack));
        }
        response.nodeEndpoints(endpoints);
    }

    private static Leader remember(Leader l, Map<Integer, Leader> leaders) {
        if (l.nodeId >= 0) {
            leaders.putIfAbsent(l.nodeId, l);
        }
        return l;
    }
}
