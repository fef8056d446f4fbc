/**
 * Brook's storage engine: one append-only log per partition, in Kafka's on-disk layout.
 *
 * <h2>Public API</h2>
 * <ul>
 *   <li>{@link io.brook.storage.LogManager} — all partition logs of one data directory: open
 *       (recovering after a crash), create, get, delete, config updates, background retention,
 *       compaction, group commit and checkpoints, clean close.</li>
 *   <li>{@link io.brook.storage.Log} — one partition: {@code append} (returns an
 *       {@link io.brook.storage.AppendResult}; {@code whenDurable} for acks=all), {@code read}
 *       (a {@link io.brook.storage.LogReadResult} holding {@link io.brook.storage.FileRecords} to
 *       send with sendfile), {@code offsetForTimestamp} (ListOffsets), {@code deleteRecordsBefore}
 *       (DeleteRecords), {@code abortedTransactions} (READ_COMMITTED), offsets.</li>
 *   <li>{@link io.brook.storage.LogConfig} — topic settings with Kafka's names and defaults.</li>
 * </ul>
 *
 * <h2>Files</h2>
 * <pre>
 * data-dir/.lock                                  held while a LogManager owns the directory
 *         /.brook_cleanshutdown                   written by a clean close, removed at start-up
 *         /recovery-point-offset-checkpoint        fsynced offset per partition
 *         /topic-0/00000000000000000000.log        batches as received (offsets assigned); the
 *                                                  active one may end in zeros written ahead
 *                                                  (see Preallocator), cut off at a roll or a
 *                                                  clean close and dropped by recovery
 *                 /00000000000000000000.index      sparse base offset -> file position
 *                 /00000000000000000000.timeindex  sparse max timestamp -> base offset
 *                                                  (both absent while a segment is empty)
 *                 /00000000000000001234.snapshot   idempotent-producer state at offset 1234
 *                 /log-start-offset                after DeleteRecords or retention
 *                 /aborted-transactions            for READ_COMMITTED fetches
 *                 /*.cleaned, *.swap, *.deleted    transient names of file replacements
 * </pre>
 */
package io.brook.storage;
