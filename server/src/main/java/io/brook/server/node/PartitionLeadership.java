package io.brook.server.node;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Who leads the partitions of a topic, as the coordinators and FindCoordinator need to know it in
 * cluster mode: the group coordinator serves the groups of the {@code __consumer_offsets}
 * partitions this node leads, the transaction coordinator those of {@code __transaction_state},
 * and FindCoordinator names the leader of a key's partition.
 *
 * <p>A single node leads every partition and needs none of this (its coordinators own every
 * partition from the start); the cluster mode implements it over the metadata image.
 *
 * <p>Threading: every method may be called from any thread and must not block; listeners run on
 * whatever thread applied the change (in cluster mode the metadata apply thread) and must be quick.
 */
public interface PartitionLeadership {

    /**
     * The partitions of {@code topic} this node leads now; empty when it leads none or the topic
     * does not exist (yet). The caller may keep the set: it does not change afterwards.
     */
    Set<Integer> ledPartitions(String topic);

    /**
     * The leader of {@code topic}'s {@code partition} and its address for clients that came in on
     * listener {@code listenerName} (that listener's advertised endpoint on the leader, as Kafka
     * answers); {@code null} when the topic or partition does not exist, or the partition has no
     * leader now (its broker is fenced), or the leader has no such listener.
     */
    LeaderHints.Leader leader(String topic, int partition, String listenerName);

    /**
     * Runs {@code listener} after every change that may have moved the leadership of some
     * partition (a leader change, a topic created or deleted, a broker fenced or unfenced). The
     * listener reads {@link #ledPartitions} again itself; spurious calls are fine.
     */
    void onChange(Runnable listener);

    /**
     * Has the internal {@code topic} created with {@code partitions} partitions and
     * {@code configs} when it does not exist yet (in cluster mode through the controller); a topic
     * that exists, or is being created, is left as it is. Kafka creates {@code __consumer_offsets}
     * and {@code __transaction_state} this way when FindCoordinator first asks for them, and
     * answers COORDINATOR_NOT_AVAILABLE until they have leaders.
     *
     * @return completes once the topic exists in this node's view, or fails with why not
     */
    CompletableFuture<Void> createIfAbsent(String topic, int partitions, Map<String, String> configs);
}
