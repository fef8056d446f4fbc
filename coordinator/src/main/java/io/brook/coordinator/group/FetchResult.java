package io.brook.coordinator.group;

import java.util.List;

import io.brook.wire.protocol.Errors;

/** The answer to an OffsetFetch for one group. */
record FetchResult(Errors error, List<FetchedPartition> partitions) {
}
