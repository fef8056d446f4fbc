package io.brook.storage;

/**
 * An aborted transaction of one producer in one partition: its data lies in
 * [{@code firstOffset}, {@code lastOffset}) and its ABORT marker at {@code lastOffset}. A
 * READ_COMMITTED Fetch lists those overlapping the returned range as
 * {@code aborted_transactions[producer_id, first_offset]}.
 */
public record AbortedTransaction(long producerId, long firstOffset, long lastOffset) {
}
