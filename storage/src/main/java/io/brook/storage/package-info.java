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
 *       (DeleteRecords), {@code abortedTransactions} (READ_COMMITTED), offsets; for replication
 *       {@code appendReplicated} (a follower's copy of the leader's batches as they are, a
 *       {@link io.brook.storage.ReplicaAppendResult}), {@code fence} (refuses the appends of an
 *       older leader epoch), {@code truncateTo} and {@code truncateFullyAndStartAt}.</li>
 *   <li>{@link io.brook.storage.LogConfig} — topic settings with Kafka's names and defaults.</li>
 * </ul>
 *
 * <h2>Threads</h2>
 * <ul>
 *   <li>Netty event loops run Produce ({@code Log.append}, {@code whenDurable}) and Fetch
 *       ({@code Log.read}) inline and never wait for a disk (they hand the force requests of a
 *       round's appends to the flushers at its end, {@link io.brook.storage.FlushRequestHold});
 *       nor does the group coordinator's thread, which appends to and reads its own partitions.
 *       The server's I/O pool runs the
 *       other handlers (ListOffsets, DeleteRecords, topic creation and deletion) and may wait
 *       for one (DeleteRecords writes the log start offset, a topic deletion fsyncs the data
 *       directory), never under an append lock.</li>
 *   <li>Flusher threads ({@link io.brook.storage.Flusher}, {@code brook.log.flush.threads}) run
 *       each log's flush: every force of segment data and indexes, and completions of
 *       durability waiters. Their timer thread queues the flushes nobody waits for once their
 *       delay ({@code brook.log.flush.coalesce.ms}, or {@code brook.log.flush.coalesce.unread.ms}
 *       while no reader is at the log's end) is over.</li>
 *   <li>The preallocator thread writes and forces zeros ahead of active segments.</li>
 *   <li>The scheduler thread runs retention (and producer expiry), {@code flush.ms} checks,
 *       recovery-point checkpoints, delayed file deletion and the writes of the producer
 *       snapshots rolls take; the cleaner thread runs compaction.</li>
 *   <li>Start-up and close open and close logs on a pool of
 *       {@code num.recovery.threads.per.data.dir} threads.</li>
 * </ul>
 *
 * <h2>Locks (one set per log; lock order top to bottom)</h2>
 * <ol>
 *   <li><b>maintenance lock</b> ({@code Log.maintenanceLock}): one retention or compaction pass
 *       of the log at a time. DeleteRecords only tries it.</li>
 *   <li><b>state-file lock</b> ({@code LogStateFiles.writeLock}): writes of the log's state files
 *       ({@code log-start-offset}, producer snapshots, {@code aborted-transactions}), one at a
 *       time and newest state last. Truncation (also a full one) and close hold it throughout.</li>
 *   <li><b>flush lock</b> ({@code DurabilityTracker.flushLock}): a flush, a truncation, a close
 *       and the file renames of a compaction swap exclude one another. Every force of a
 *       segment's data or index files happens under it, but for the preallocator's forces of
 *       zeros (which hold no lock) and those of the loader (before anyone sees the log).</li>
 *   <li><b>append lock</b> ({@code Log.appendLock}): guards appends and rolls, every change of
 *       the segment map (roll, retention, truncation, swap), the offsets (log end, log start,
 *       first unstable offset), producer state and the in-memory aborted transactions, and the
 *       start of a close. Held for page-cache work only.</li>
 *   <li><b>segment monitor</b> ({@code LogSegment}): held by a segment's force and index write
 *       and by marking the segment deleted, so a deleted segment is never forced again. Under
 *       the append lock only while the flush lock is held too (then no force holds it).</li>
 *   <li><b>zero-tail lock</b> ({@code PreallocatedTail}): the file's length past its data
 *       (page-cache writes and truncations, never a force).</li>
 * </ol>
 * Outside that order, and never held while taking another lock: the durability waiters'
 * monitor ({@code DurabilityTracker}; completions run after it is released) and the
 * book-keeping monitors of {@code LogStateFiles} and {@code TransactionIndex}. The flusher's
 * per-log state ({@code DurabilityTracker.flushState}) is an atomic state machine, no lock.
 * Reads take no lock: the segment map is a concurrent map, offsets are volatile and the visible
 * end ({@code LogPoint}) is published after the bytes it covers.
 *
 * <h2>Never under the append lock</h2>
 * No fsync of a file or a directory, and no waiting for one: no force of segment data, index,
 * snapshot, checkpoint or state file, no wait on a segment monitor a force may hold, no closing
 * of a segment's channel (it waits for a force in progress), no lock that comes before it in the
 * order above. State that must reach the disk is changed in memory under the append lock and
 * written after it is released: retention, DeleteRecords and truncation move the log start
 * offset and {@code LogStateFiles} writes it on their own thread; a roll serialises the producer
 * state and the scheduler's thread writes it, so an append never waits for a disk, not even
 * after the lock. Segments taken out of the log are renamed under the lock by truncation
 * (because a roll may reuse their base offset) and after it by retention, and the directory is
 * fsynced after the lock is released; a clean close stops appends under the lock and forces
 * everything after it. Futures (durability waiters) may be completed under the lock, so their
 * callbacks must hand real work to another thread.
 *
 * <h2>Durable files</h2>
 * Every temp-file-then-rename write, directory fsync and recursive delete goes through
 * {@link io.brook.storage.file.DurableFiles}, whose failures propagate: the caller takes the log
 * offline, fails the request or stops start-up (a full disk only fails the request, see
 * {@code docs/storage-faults.md}). The exceptions are a producer snapshot, whose failed write is
 * logged (an older snapshot and the log replace it at the next start), and the periodic
 * recovery-point checkpoint, whose failed write is logged (the next one, or a longer scan at
 * the next unclean start, covers it).
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
 *                 /log-start-offset                after DeleteRecords, retention or truncation
 *                 /aborted-transactions            for READ_COMMITTED fetches
 *                 /*.cleaned, *.swap, *.deleted    transient names of file replacements
 * </pre>
 */
package io.brook.storage;
