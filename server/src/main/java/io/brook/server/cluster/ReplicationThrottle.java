package io.brook.server.cluster;

import io.brook.server.config.BrokerConfig;
import io.brook.server.config.DynamicBrokerConfig;
import io.brook.server.topic.Topic;
import io.brook.server.topic.Topics;
import io.brook.storage.LogConfig;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * Kafka's replication throttles on this node (docs/cluster.md, section 6a): a replica fetcher asks
 * "may I fetch N bytes of partition P now, else how long do I wait". A partition is throttled on
 * this node's follower side when its topic's {@code follower.replication.throttled.replicas} names
 * {@code P:<this node>} (or is {@code *}), on its leader side when {@code
 * leader.replication.throttled.replicas} does; its bytes then count against {@code
 * follower.replication.throttled.rate} or {@code leader.replication.throttled.rate} (this broker's
 * dynamic value, else the cluster default, else the properties file, else unlimited), one bucket
 * per side shared by all throttled partitions, as Kafka's replication quotas. Partitions not named
 * are never delayed and not counted. Configs are read on every call, so changes apply at once.
 *
 * <p>Wired in by {@link ClusterMode}: the replica fetchers ask the follower side before each
 * fetch of a copy ({@code PartitionFetcher}), the Fetch handler asks the leader side for the
 * records it would send a follower out of the ISR ({@link io.brook.server.node.PartitionLeadership#throttledToReplica}).
 * How often either side answered "wait" is counted ({@link #waits}), for tests and operators.
 */
public final class ReplicationThrottle {

    private final int nodeId;
    private final ToLongFunction<String> rates;
    private final Function<String, Map<String, String>> topicConfigs;
    private final ByteRateLimiter follower;
    private final ByteRateLimiter leader;
    private final AtomicLong waits = new AtomicLong();

    /**
     * @param rates the rate in force for a throttle key ({@link BrokerConfig#FOLLOWER_REPLICATION_THROTTLED_RATE}, ...)
     * @param topicConfigs a topic's config overrides by name; null for an unknown topic
     */
    public ReplicationThrottle(int nodeId, ToLongFunction<String> rates,
                               Function<String, Map<String, String>> topicConfigs, Clock clock) {
        this.nodeId = nodeId;
        this.rates = rates;
        this.topicConfigs = topicConfigs;
        this.follower = new ByteRateLimiter(clock);
        this.leader = new ByteRateLimiter(clock);
    }

    /** The throttles of a broker: its dynamic settings over its properties file, its topics' overrides. */
    public static ReplicationThrottle of(int nodeId, BrokerConfig config, DynamicBrokerConfig dynamic, Topics topics,
                                         Clock clock) {
        return new ReplicationThrottle(nodeId, key -> {
            String v = dynamic.effective().get(key);
            return v != null ? Long.parseLong(v.trim()) : config.longValue(key);
        }, name -> {
            Topic t = topics.get(name);
            return t == null ? null : t.configs();
        }, clock);
    }

    /**
     * Follower side: 0 when this node may fetch {@code bytes} of the partition now (counted if it
     * is throttled), else the milliseconds to wait before asking again.
     */
    public long followerDelayMs(String topic, int partition, long bytes) {
        if (!throttled(topic, partition, LogConfig.FOLLOWER_REPLICATION_THROTTLED_REPLICAS)) {
            return 0;
        }
        return counted(follower.delayMs(bytes, rates.applyAsLong(BrokerConfig.FOLLOWER_REPLICATION_THROTTLED_RATE)));
    }

    /** Leader side: as {@link #followerDelayMs}, for bytes this node, as leader, would send to a follower. */
    public long leaderDelayMs(String topic, int partition, long bytes) {
        if (!throttled(topic, partition, LogConfig.LEADER_REPLICATION_THROTTLED_REPLICAS)) {
            return 0;
        }
        return counted(leader.delayMs(bytes, rates.applyAsLong(BrokerConfig.LEADER_REPLICATION_THROTTLED_RATE)));
    }

    /** How many times either side answered a wait (a delay above 0) so far. */
    public long waits() {
        return waits.get();
    }

    private long counted(long delayMs) {
        if (delayMs > 0) {
            waits.incrementAndGet();
        }
        return delayMs;
    }

    private boolean throttled(String topic, int partition, String key) {
        Map<String, String> configs = topicConfigs.apply(topic);
        return configs != null && names(configs.get(key), partition, nodeId);
    }

    /** Whether a {@code *.replication.throttled.replicas} value names replica {@code partition:broker}. */
    static boolean names(String replicas, int partition, int broker) {
        if (replicas == null || replicas.isBlank()) {
            return false;
        }
        if (replicas.trim().equals("*")) {
            return true;
        }
        String wanted = partition + ":" + broker;
        for (String r : replicas.split(",", -1)) {
            if (r.trim().equals(wanted)) {
                return true;
            }
        }
        return false;
    }
}
