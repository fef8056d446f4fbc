package io.brook.server.metrics;

/**
 * What Kafka's {@code kafka.controller:type=KafkaController} gauges report, read together from
 * one view of the metadata: whether this node is the active controller (1 or 0), the registered
 * brokers unfenced and fenced, and the topics, partitions and partitions without a leader.
 * Dashboards and alerts written for Kafka watch these (the sum of ActiveControllerCount over the
 * cluster must be 1; OfflinePartitionsCount must be 0).
 */
public record ControllerCounts(int activeControllers, int activeBrokers, int fencedBrokers, int topics,
                               int partitions, int offlinePartitions) {
}
