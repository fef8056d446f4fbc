package io.brook.storage;

/**
 * Answer of a ListOffsets lookup: the offset, the timestamp found (-1 for the special queries
 * EARLIEST and LATEST) and the leader epoch of the batch holding it (-1 when not from a batch).
 */
public record TimestampOffset(long offset, long timestamp, int leaderEpoch) {
}
