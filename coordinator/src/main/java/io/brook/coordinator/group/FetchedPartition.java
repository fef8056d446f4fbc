package io.brook.coordinator.group;

import io.brook.wire.protocol.Errors;

/** One partition of an OffsetFetch answer; offset and epoch are -1 when nothing is committed. */
record FetchedPartition(String topic, int partition, long offset, int leaderEpoch, String metadata, Errors error) {
}
