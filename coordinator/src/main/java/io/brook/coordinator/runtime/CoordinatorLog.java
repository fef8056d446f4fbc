package io.brook.coordinator.runtime;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Where a coordinator keeps its state: the partitions of an internal compacted topic (e.g.
 * {@code __consumer_offsets} for the group coordinator). A coordinator depends only on this
 * interface, so that tests can keep the records in memory and the broker can back them with the
 * partition logs of {@code storage} ({@link StorageCoordinatorLog}).
 *
 * <p>Contract:
 * <ul>
 *   <li>{@link #append} writes all records of one call to one partition, atomically and in order,
 *       and completes the future only when they are as durable as an {@code acks=all} produce (on
 *       disk when fsync-on-ack is on). It may complete on any thread. A failed future means none of
 *       the records is visible after a restart. A write the log could not make fails with a
 *       {@link CoordinatorLogException} that says why, never with an exception of the storage
 *       layer; a call outside this contract (a partition the log does not have, no records) fails
 *       with an {@link IllegalArgumentException}.</li>
 *   <li>{@link #replay} hands every record that survived (in offset order per partition, partitions
 *       in any order) to the consumer on the calling thread, before the coordinator accepts requests.
 *       Compaction may already have dropped superseded records and tombstones. A log that cannot be
 *       read throws a {@link CoordinatorLogException}.</li>
 * </ul>
 */
public interface CoordinatorLog {

    /**
     * Appends records to one partition.
     *
     * @return completes with the offset of the last record once durable
     */
    CompletableFuture<Long> append(int partition, List<CoordinatorRecord> records);

    /** Reads back everything written before, for start-up. */
    void replay(Consumer<CoordinatorRecord> consumer);
}
