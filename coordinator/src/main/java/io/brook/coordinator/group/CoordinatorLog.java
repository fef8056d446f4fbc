package io.brook.coordinator.group;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * Where the group coordinator keeps its state: the partitions of the internal compacted topic
 * {@code __consumer_offsets}. The coordinator depends only on this interface so that it can be
 * tested with {@link InMemoryCoordinatorLog} and backed by the partition logs of {@code storage} in
 * the broker.
 *
 * <p>Contract:
 * <ul>
 *   <li>{@link #append} writes all records of one call to one partition, atomically and in order,
 *       and completes the future only when they are as durable as an {@code acks=all} produce (on
 *       disk when fsync-on-ack is on). It may complete on any thread. A failed future means none of
 *       the records is visible after a restart.</li>
 *   <li>{@link #replay} hands every record that survived (in offset order per partition, partitions
 *       in any order) to the consumer on the calling thread, before the coordinator accepts requests.
 *       Compaction may already have dropped superseded records and tombstones.</li>
 * </ul>
 */
public interface CoordinatorLog {

    /**
     * Appends records to one partition of {@code __consumer_offsets}.
     *
     * @return completes with the offset of the last record once durable
     */
    CompletableFuture<Long> append(int partition, List<CoordinatorRecord> records);

    /** Reads back everything written before, for start-up. */
    void replay(Consumer<CoordinatorRecord> consumer);
}
