/**
 * What every coordinator of the broker runs on: a single owner thread with keyed timers
 * ({@link io.brook.coordinator.runtime.EventLoop}), its state kept as key/value records
 * ({@link io.brook.coordinator.runtime.CoordinatorRecord}) in the partitions of an internal
 * compacted topic ({@link io.brook.coordinator.runtime.CoordinatorLog}, over storage's partition
 * logs in {@link io.brook.coordinator.runtime.StorageCoordinatorLog}), loaded back in the
 * background after a start while the coordinator already serves
 * ({@link io.brook.coordinator.runtime.CoordinatorLoader}), and writes that resume on the owner
 * thread once durable ({@link io.brook.coordinator.runtime.DurableWriter}); requests reach the
 * owner thread through {@link io.brook.coordinator.runtime.CoordinatorRequests}, which answers
 * every one, with the API's error response when it cannot be served. A log that
 * cannot write or read says why with a {@link io.brook.coordinator.runtime.CoordinatorLogException};
 * nothing of the storage layer reaches a coordinator through the interface.
 *
 * <h2>How a coordinator plugs in</h2>
 * The group coordinator ({@code io.brook.coordinator.group}) is built this way, and a transaction
 * coordinator or a KIP-848 or KIP-932 group coordinator would sit beside it in the same shape:
 * <ol>
 *   <li>Give it a {@code CoordinatorLog} over its own internal topic and an {@code EventLoop}; keep
 *       every piece of its state confined to the loop's owner thread.</li>
 *   <li>Build a {@code CoordinatorLoader} over the log and the loop with a
 *       {@code CoordinatorLoader.Target} that applies a record to the in-memory state, arms the
 *       timers of a partition once it is loaded, drops what was applied of a partition whose
 *       load failed, and forgets a partition no longer owned (its state, its timers, what waits on
 *       it). At start, {@code EventLoop.start}, then {@code CoordinatorLoader.start}: the
 *       coordinator serves at once. In a cluster, hand {@code CoordinatorLoader.own} the
 *       partitions this node leads whenever they change, and build the {@code DurableWriter} over
 *       the loader's ownership epochs so that writes of a partition lost meanwhile fail.</li>
 *   <li>Hand each request to the owner thread with {@code EventLoop.execute}. Check first the
 *       {@code CoordinatorLoader.state} of the partition the request touches: while it is
 *       {@code LOADING} answer COORDINATOR_LOAD_IN_PROGRESS (or what Kafka answers for that API),
 *       when {@code FAILED} or {@code NOT_OWNED} NOT_COORDINATOR, and leave the partition's state
 *       alone in timers. Then
 *       answer at once what needs no write, and what does only when the future of
 *       {@code DurableWriter.write} completes (on the owner thread), so that no answer gets ahead
 *       of the log.</li>
 *   <li>Use {@code EventLoop.schedule}/{@code cancel} with keys of its own for timeouts; a key
 *       scheduled again replaces the earlier timer.</li>
 *   <li>At close, {@code CoordinatorLoader.close}, answer what is parked from the owner thread, then
 *       {@code EventLoop.stop}; writes still in flight then complete on the thread that finishes
 *       them.</li>
 * </ol>
 */
package io.brook.coordinator.runtime;
