package io.brook.coordinator.group;

import io.brook.wire.protocol.Errors;

/** The outcome for one partition of an OffsetCommit or OffsetDelete. */
record PartitionResult(String topic, int partition, Errors error) {
}
