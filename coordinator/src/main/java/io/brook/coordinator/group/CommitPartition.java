package io.brook.coordinator.group;

/** One partition of an OffsetCommit; {@code leaderEpoch} is -1 when the version has none. */
record CommitPartition(String topic, int partition, long offset, int leaderEpoch, String metadata) {
}
