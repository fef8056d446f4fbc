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
 *       layer; a call outside this contract (a partition the log does not have, no records,
 *       records of different producers, a marker with other records) fails with an
 *       {@link IllegalArgumentException}. Transactional records and markers (see
 *       {@link CoordinatorRecord}) are written as Kafka writes them, and read back as such.</li>
 *   <li>{@link #read} returns the records of one partition that survived (compaction may already
 *       have dropped superseded records and tombstones), in offset order from the offset asked for,
 *       about {@code maxBytes} at a time (a larger first batch is still returned whole), so that a
 *       coordinator loads its state in bounded memory (see {@link CoordinatorLoader}). It may be
 *       called on any thread, also while {@link #append} is in use for other partitions. A log that
 *       cannot be read throws a {@link CoordinatorLogException}; a partition the log does not have
 *       yet (the topic is created on the first append) reads as empty.</li>
 * </ul>
 */
public interface CoordinatorLog {

    /**
     * Appends records to one partition.
     *
     * @return completes with the offset of the last record once durable
     */
    CompletableFuture<Long> append(int partition, List<CoordinatorRecord> records);

    /**
     * Reads records of one partition from {@code fromOffset} (or from the log start, when that is
     * later) up to about {@code maxBytes}.
     */
    ReplayChunk read(int partition, long fromOffset, int maxBytes);

    /** Reads one partition to its end on the calling thread, in chunks of about {@code maxBytes}. */
    default void replay(int partition, int maxBytes, Consumer<CoordinatorRecord> consumer) {
        long offset = 0;
        while (true) {
            ReplayChunk chunk = read(partition, offset, maxBytes);
            chunk.records().forEach(consumer);
            if (chunk.end() || (chunk.nextOffset() <= offset && chunk.records().isEmpty())) return;
            offset = chunk.nextOffset();
        }
    }
}
