package io.brook.server.cluster.replica;

/**
 * The follower side of Kafka's replication throttle, as the partition fetchers ask it
 * ({@code follower.replication.throttled.rate} for the partitions a topic's
 * {@code follower.replication.throttled.replicas} names on this node; the cluster's
 * {@code ReplicationThrottle}): 0 when {@code bytes} copied of a partition may be counted now,
 * else how many milliseconds to wait before asking again (nothing counted).
 */
@FunctionalInterface
public interface FollowerThrottle {

    /** No throttle: copies go at full speed. */
    FollowerThrottle NONE = (topic, partition, bytes) -> 0;

    long delayMs(String topic, int partition, long bytes);
}
