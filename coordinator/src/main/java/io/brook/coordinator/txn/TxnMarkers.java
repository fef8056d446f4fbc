package io.brook.coordinator.txn;

import java.util.Map;
import java.util.SortedSet;
import java.util.concurrent.CompletableFuture;

/**
 * Writes the end of a transaction into the partitions it touched: a COMMIT or ABORT control batch
 * into each data partition, and for {@code __consumer_offsets} partitions the completion of the
 * transactional offset commits of the producer. Implemented by the broker (Kafka's
 * WriteTxnMarkers, sent by a broker to itself here).
 */
public interface TxnMarkers {

    /**
     * Writes the markers of one transaction.
     *
     * @param producerId     the transaction's producer id
     * @param producerEpoch  the epoch the markers carry
     * @param commit         COMMIT or ABORT
     * @param transactionsV2 the transaction ran transactions V2: the markers' epoch was bumped past
     *                       the epoch of the transaction's data, which the partitions may check
     *                       (Kafka's WriteTxnMarkers v2 {@code transaction_version})
     * @param partitions     topic → partitions of the transaction
     * @return completes, on any thread, once every marker is durable (a partition that no longer
     *         exists counts as done); fails when one could not be written, and is then retried
     */
    CompletableFuture<Void> write(long producerId, short producerEpoch, boolean commit, boolean transactionsV2,
                                  Map<String, SortedSet<Integer>> partitions);
}
