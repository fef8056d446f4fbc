package io.brook.coordinator.group;

import java.util.List;

import io.brook.wire.protocol.Errors;

/** The answer to an OffsetDelete: a group-level error and one result per partition asked for. */
record OffsetDeleteResult(Errors error, List<PartitionResult> partitions) {
}
