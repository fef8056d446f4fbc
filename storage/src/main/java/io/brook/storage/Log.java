package io.brook.storage;

import io.brook.storage.file.DurableFiles;
import io.brook.wire.protocol.Errors;
import io.brook.wire.record.RecordBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The log of one partition: a sorted map of {@link LogSegment}s (base offset → segment), the last
 * of which is active and takes appends. This class holds the log's state and is its public
 * face; the work is done in rooms of its own: {@link LogLoader} (opening and recovery),
 * {@link LogAppender} and {@link ReplicaAppender} (a leader's and a follower's appends),
 * {@link AppendValidator} (checks and header rewriting), {@link DurabilityTracker} (flushes,
 * durability waiters, I/O failure), {@link TimestampLookup} (ListOffsets), {@link LogRetention}
 * (retention, DeleteRecords, the log start offset), {@link LogTruncation}, {@link SegmentSwap}
 * (installing a compaction's result) and {@link LogStateFiles} (the small state files beside the
 * segments).
 *
 * <h2>Offsets</h2>
 * <pre>
 *   logStartOffset <= lastStableOffset <= highWatermark <= logEndOffset
 * </pre>
 * <ul>
 *   <li><b>appended</b> (log end offset): the batch was handed to the OS with {@code write}; it
 *       survives a crash of the process but not of the machine.</li>
 *   <li><b>durable</b> (= flushed; Brook keeps no user-space write buffer, so a flush is an
 *       fsync): the flusher's {@code force} returned for a capture of the log end at or after the
 *       batch. {@link #whenDurable} completes then, and the recovery point follows it.</li>
 *   <li><b>high watermark</b>: what consumers may read. With {@code brook.flush.on.ack=true}
 *       (default) it is the durable offset, so no consumer ever sees a record a crash can take
 *       back; with {@code false} it is the log end (Kafka's page-cache behaviour) and flushes
 *       happen only by {@code flush.messages} / {@code flush.ms}.</li>
 * </ul>
 *
 * <h2>Threading</h2>
 * The locking contract (which lock guards what, which threads call what, what never happens
 * under the append lock) is written once, in the package documentation. In short: appends,
 * rolls and every change of the segment map or the offsets hold this log's append lock, which
 * is never held across an fsync; reads take no lock.
 *
 * <h2>I/O failures</h2>
 * The table of every fault and its answer is {@code docs/storage-faults.md}. A full disk
 * (ENOSPC) is not a failure: the append whose write or roll meets it is refused with
 * KAFKA_STORAGE_ERROR, whatever a short write left past the data is cut off, and the next append
 * tries again, so writes resume by themselves once space is free while reads never stop
 * ({@link LogAppender}); retention and DeleteRecords carry on the same way. Any other I/O error
 * in an append's write or roll, a flush ({@code force}, including an unchecked exception or an
 * {@link Error} thrown on the flush path), retention or DeleteRecords (including the write of
 * the log start offset they moved) takes this log offline for good (see
 * {@link DurabilityTracker}): appends and reads return KAFKA_STORAGE_ERROR and durability waiters
 * fail. The other logs of the data directory carry on (Kafka would take the directory offline).
 * A read error fails only that read. A producer snapshot that cannot be written is logged, and
 * {@link #truncateTo} throws its I/O errors to its caller.
 */
public final class Log implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Log.class);

    /** Earliest: ListOffsets timestamp -2 (also -4 without tiered storage). */
    public static final long EARLIEST_TIMESTAMP = -2L;
    /** Latest: ListOffsets timestamp -1. */
    public static final long LATEST_TIMESTAMP = -1L;
    /** The record with the largest timestamp: ListOffsets timestamp -3 (KIP-734). */
    public static final long MAX_TIMESTAMP = -3L;
    /** Earliest local: same as earliest here. */
    public static final long EARLIEST_LOCAL_TIMESTAMP = -4L;

    private final Path dir;
    private final String topic;
    private final int partition;
    private volatile LogConfig config;
    final Clock clock;
    private final Scheduler scheduler;
    /** Writes zeros ahead of the active segment's data; null for none. */
    final Preallocator preallocator;
    private volatile HighWatermarkListener listener;
    /** The process's file descriptors, whose headroom rolls respect (set by the manager; default: unbounded). */
    volatile FileDescriptors files = FileDescriptors.UNBOUNDED;
    private volatile LogTruncation.Listener truncationListener;

    final ConcurrentSkipListMap<Long, LogSegment> segments = new ConcurrentSkipListMap<>();
    /** Serialises appends, rolls and every change of the segment map and the offsets. Never held across an fsync. */
    final ReentrantLock appendLock = new ReentrantLock();
    /** Serialises retention and compaction of this log. */
    final ReentrantLock maintenanceLock = new ReentrantLock();
    final ProducerStateManager producers;
    final TransactionIndex txnIndex;
    final LogStateFiles stateFiles;
    final DurabilityTracker durability;
    private final LogAppender appender;
    private final ReplicaAppender replicaAppender;
    private final LogRetention retention;

    // Written under the append lock (or while opening), read by anyone.
    volatile LogSegment active;
    volatile long logEndOffset;
    volatile long logStartOffset;
    volatile long firstUnstableOffset = -1L;
    /** The log end as last published by an append or truncation; what readers may see without fsync-on-ack. */
    volatile LogPoint appended;
    /**
     * The end readers could see when fsync-on-ack was last switched on (null if it never was):
     * a floor of the high watermark until the durable point passes it. Lowered by truncation.
     */
    volatile LogPoint visibleBeforeFlushOnAck;
    volatile Corruption corruption;
    /** Set when a clean close begins: no more appends, rolls or retention. */
    volatile boolean closing;
    private volatile boolean closed;
    /** Segments whose indexes had to be rebuilt when the log was opened (observable by tests). */
    int indexRebuilds;

    private Log(Path dir, String topic, int partition, LogConfig config, Clock clock, Scheduler scheduler,
            Flusher flusher, Preallocator preallocator) {
        this.dir = dir;
        this.topic = topic;
        this.partition = partition;
        this.config = config;
        this.clock = clock;
        this.scheduler = scheduler;
        this.preallocator = preallocator;
        this.producers = new ProducerStateManager(dir);
        this.txnIndex = new TransactionIndex(dir);
        this.stateFiles = new LogStateFiles(dir, toString(), producers, txnIndex, scheduler);
        this.durability = new DurabilityTracker(this, flusher);
        this.appender = new LogAppender(this);
        this.replicaAppender = new ReplicaAppender(this, appender);
        this.retention = new LogRetention(this);
    }

    /**
     * Opens (creating if needed) the log in {@code dir}.
     *
     * @param recoveryPoint offset below which data is known to have been fsynced (0 if unknown)
     * @param cleanShutdown whether the previous run closed the logs cleanly; if not, every segment
     *                      from the one holding the recovery point on is scanned and checked
     *                      (that one from a verified batch at or below the recovery point, see
     *                      {@link LogLoader})
     * @param flusher       the group-commit thread, or null to flush only by {@link #flush()}
     */
    static Log open(Path dir, String topic, int partition, LogConfig config, long recoveryPoint,
            boolean cleanShutdown, Clock clock, Scheduler scheduler, Flusher flusher) throws IOException {
        return open(dir, topic, partition, config, recoveryPoint, cleanShutdown, clock, scheduler, flusher, null);
    }

    /** As above, with {@code preallocator} writing zeros ahead of the active segment (null for none). */
    static Log open(Path dir, String topic, int partition, LogConfig config, long recoveryPoint,
            boolean cleanShutdown, Clock clock, Scheduler scheduler, Flusher flusher, Preallocator preallocator)
            throws IOException {
        boolean created = !Files.isDirectory(dir);
        Files.createDirectories(dir);
        Log log = new Log(dir, topic, partition, config, clock, scheduler, flusher, preallocator);
        if (created) {
            LogLoader.createEmpty(log);
        } else {
            LogLoader.load(log, recoveryPoint, cleanShutdown);
        }
        return log;
    }

    /** Called once by the {@link LogLoader}: the state the log starts with. */
    void opened(LogSegment active, long logStartOffset, long firstUnstableOffset, Corruption corruption,
            boolean newDirectory) {
        this.active = active;
        this.logEndOffset = active.nextOffset();
        this.logStartOffset = logStartOffset;
        this.firstUnstableOffset = firstUnstableOffset;
        this.corruption = corruption;
        LogPoint end = LogPoint.endOf(active, logEndOffset);
        this.appended = end;
        durability.opened(end, clock.millis(), newDirectory);
        stateFiles.opened(logStartOffset);
    }

    // ------------------------------------------------------------------------------------------
    // Append
    // ------------------------------------------------------------------------------------------

    /**
     * Appends one record batch from a client. The batch must already have passed
     * {@link RecordBatch#validateClientBatch}; {@code batch} holds exactly that batch between its
     * position and limit. The log assigns the base offset and leader epoch (in place when the
     * buffer is writable, else in a copy of the 61-byte header) and, for LogAppendTime topics,
     * the timestamp; the rest is written unchanged. The buffer's position is left as it was.
     *
     * <p>Returns at once, without waiting for a disk: use {@link #whenDurable} for acks=all.
     * Expected failures come back as an error code, never as an exception.
     */
    public AppendResult append(ByteBuffer batch, int leaderEpoch) {
        return appender.append(batch, leaderEpoch, false, false);
    }

    /**
     * {@link #append} for a batch a coordinator writes into its own internal topic: a
     * transactional batch may carry no sequence (-1), as Kafka's coordinators write them (a
     * transactional offset commit into {@code __consumer_offsets}); its producer epoch is still
     * checked, its sequence is not.
     */
    public AppendResult appendAsCoordinator(ByteBuffer batch, int leaderEpoch) {
        return appender.append(batch, leaderEpoch, true, false);
    }

    /**
     * Appends a COMMIT or ABORT marker (a control batch) as {@link #append} does. With
     * {@code transactionsV2} it ends a transaction of KIP-890 part 2, whose markers carry an epoch
     * the coordinator bumped past the epoch of the transaction's data: one at or below the epoch
     * of the producer's transaction still open here is refused with INVALID_PRODUCER_EPOCH, as an
     * older epoch always is.
     */
    public AppendResult appendMarker(ByteBuffer marker, int leaderEpoch, boolean transactionsV2) {
        return appender.append(marker, leaderEpoch, false, transactionsV2);
    }

    /**
     * Appends whole batches copied from the leader's log (a Fetch response's records, between
     * the buffer's position and limit, which are left as they were) as they are: offsets, leader
     * epochs, timestamps and producer fields are kept (see {@link ReplicaAppender}). A partial
     * batch at the end is ignored. Errors: CORRUPT_MESSAGE (a batch fails its checks; nothing
     * appended), OFFSET_OUT_OF_RANGE (the first batch lies below the log end: truncate first),
     * KAFKA_STORAGE_ERROR. Not subject to {@link #fence}. Returns at once; {@link #whenDurable}
     * tells when the batches are durable. The high watermark of a follower's log is, as a
     * leader's, what is durable (or appended, with fsync-on-ack off).
     */
    public ReplicaAppendResult appendReplicated(ByteBuffer batches) {
        return replicaAppender.append(batches);
    }

    /**
     * From now on {@link #append}, {@link #appendAsCoordinator} and {@link #appendMarker} with a
     * {@code leaderEpoch} below {@code leaderEpoch} are refused with NOT_LEADER_OR_FOLLOWER
     * (checked under the append lock, so an append either lands below the returned end or is
     * refused). Returns the log end at the moment of fencing; a fence at the same or a lower
     * epoch changes nothing and returns the end of the fence in place. In memory only.
     */
    public long fence(int leaderEpoch) {
        return appender.fence(leaderEpoch);
    }

    /** The epoch of the last {@link #fence}, -1 if none since the log was opened. */
    public int fencedEpoch() {
        return appender.fencedEpoch();
    }

    /** Under the append lock: makes a new active segment starting at {@code base}. */
    void roll(long base, long now) throws IOException {
        appender.roll(base, now);
    }

    /**
     * Whether zeros should be kept ahead of the active segment: a preallocator is there, answers
     * wait for fsync, and this log's forces are small enough on average for it to pay off.
     */
    boolean wantsPreallocation(LogConfig cfg) {
        return preallocator != null && cfg.flushOnAck() && durability.forcesAreSmall();
    }

    /**
     * For a READ_COMMITTED Fetch: the aborted transactions overlapping offsets
     * [{@code fetchOffset}, {@code upperBound}) (upperBound = the offset after the returned
     * data, or the last stable offset).
     */
    public List<AbortedTransaction> abortedTransactions(long fetchOffset, long upperBound) {
        return txnIndex.collect(fetchOffset, upperBound);
    }

    // ------------------------------------------------------------------------------------------
    // Durability
    // ------------------------------------------------------------------------------------------

    /**
     * Completes when every offset below {@code nextOffset} is durable (pass an append's
     * {@code lastOffset() + 1}). Immediately complete when fsync-on-ack is off. Completes
     * exceptionally if the log fails or is truncated below the offset first. Completion runs on
     * the flusher thread: hand real work to another executor.
     */
    public CompletableFuture<Void> whenDurable(long nextOffset) {
        return durability.whenDurable(nextOffset);
    }

    /** Makes everything appended so far durable (see {@link DurabilityTracker#flush}). */
    void flush() {
        durability.flush();
    }

    /** How many times the active segment was forced (each covers every append before it). */
    long flushCount() {
        return durability.flushCount();
    }

    /** Asks the flusher for a flush if {@code flush.ms} has passed since the last one and data is waiting. */
    void maybeFlushByTime(long nowMs) {
        durability.maybeFlushByTime(nowMs);
    }

    /**
     * Whether an I/O failure took this log offline for good (until a restart): appends and reads
     * answer KAFKA_STORAGE_ERROR. A full disk does not, nor corruption found at start-up.
     */
    public boolean isOffline() {
        return durability.failure() != null;
    }

    String storageProblem() {
        if (closing) {
            return "the log of " + this + " is closed";
        }
        IOException failure = durability.failure();
        if (failure != null) {
            return "the log of " + this + " failed: " + failure.getMessage();
        }
        return "the log of " + this + " has corrupt data: " + corruption;
    }

    // ------------------------------------------------------------------------------------------
    // Read
    // ------------------------------------------------------------------------------------------

    /**
     * Reads from {@code offset}: the slice begins with the batch that contains it, holds at most
     * {@code maxBytes} (but at least that first whole batch when {@code minOneBatch}, as Kafka's
     * KIP-74 requires for the first partition of a fetch) and never reaches the high watermark.
     * Offsets below the log start or above the log end give OFFSET_OUT_OF_RANGE; offsets from the
     * high watermark to the log end give no records.
     */
    public LogReadResult read(long offset, int maxBytes, boolean minOneBatch) {
        return read(offset, maxBytes, minOneBatch, false);
    }

    /**
     * {@link #read(long, int, boolean)} for an isolation level: with {@code readCommitted} the
     * slice ends at the last stable offset instead of the high watermark (pair it with
     * {@link #abortedTransactions}).
     */
    public LogReadResult read(long offset, int maxBytes, boolean minOneBatch, boolean readCommitted) {
        return LogReader.read(this, offset, maxBytes, minOneBatch, readCommitted);
    }

    static long highWatermark(LogPoint d, long leo) {
        return Math.min(d.offset(), leo);
    }

    /**
     * The end readers may see: the durable one, or with fsync-on-ack off the appended one. Once
     * fsync-on-ack is switched back on, the end readers could see while it was off stays visible
     * until the durable point passes it: the high watermark never moves backwards.
     */
    LogPoint visible() {
        if (!config.flushOnAck()) {
            return appended;
        }
        LogPoint d = durability.durable();
        LogPoint seen = visibleBeforeFlushOnAck;
        return seen != null && seen.offset() > d.offset() ? seen : d;
    }

    long lastStableOffset(long hw) {
        long fu = firstUnstableOffset;
        return fu >= 0 ? Math.min(fu, hw) : hw;
    }

    // ------------------------------------------------------------------------------------------
    // Offsets, timestamps and settings
    // ------------------------------------------------------------------------------------------

    public String topic() { return topic; }

    public int partition() { return partition; }

    public Path dir() { return dir; }

    public LogConfig config() { return config; }

    /**
     * Replaces the settings; they apply from the next append, roll or background pass. Switching
     * fsync-on-ack back on keeps the high watermark where it was (see {@link #visible}) and asks
     * for a flush, after which it follows the durable offset again.
     */
    public void updateConfig(LogConfig newConfig) {
        boolean catchUp = false;
        appendLock.lock();
        try {
            // Under the append lock, so that no append moves the end readers see in between.
            if (newConfig.flushOnAck() && !config.flushOnAck()) {
                visibleBeforeFlushOnAck = appended;
                catchUp = true;
            }
            this.config = newConfig;
        } finally {
            appendLock.unlock();
        }
        if (catchUp) {
            durability.requestFlush();
        }
    }

    /** Sets the one listener told about high-watermark advances (null to remove). */
    public void setHighWatermarkListener(HighWatermarkListener l) {
        this.listener = l;
    }

    HighWatermarkListener highWatermarkListener() {
        return listener;
    }

    /** Sets the one listener told when a truncation lowered the durable offset (the log manager's checkpoint). */
    void setTruncationListener(LogTruncation.Listener l) {
        this.truncationListener = l;
    }

    LogTruncation.Listener truncationListener() {
        return truncationListener;
    }

    public long logStartOffset() { return logStartOffset; }

    public long logEndOffset() { return logEndOffset; }

    public long highWatermark() { return highWatermark(visible(), logEndOffset); }

    /** The first offset of the earliest open transaction, capped by the high watermark. */
    public long lastStableOffset() { return lastStableOffset(highWatermark()); }

    /** Everything below this offset has been fsynced (the recovery point). */
    public long durableOffset() { return durability.durable().offset(); }

    /** Total bytes of all segment files. */
    public long sizeInBytes() {
        long n = 0;
        for (LogSegment s : segments.values()) {
            n += s.size();
        }
        return n;
    }

    public int segmentCount() { return segments.size(); }

    /**
     * Bytes appended that are not durable yet: from the durable point (the last group commit) to
     * the end of the newest segment. Walks the segments from the durable one on: for metrics, not
     * for the hot path.
     */
    public long bytesNotDurable() {
        LogPoint d = durability.durable();
        long n = 0;
        for (LogSegment s : segments.tailMap(d.segmentBase(), true).values()) {
            n += s.baseOffset == d.segmentBase() ? s.size() - d.position() : s.size();
        }
        return Math.max(0, n);
    }

    /** Null if healthy, else the corrupt spot that stops this log from serving past it. */
    public String corruption() {
        Corruption c = corruption;
        return c == null ? null : c.toString();
    }

    /**
     * ListOffsets: for a real timestamp, the first offset (at or above the log start, below the
     * high watermark) whose record timestamp is at or above it, with that timestamp; null if none.
     * Special values: {@link #EARLIEST_TIMESTAMP}/{@link #EARLIEST_LOCAL_TIMESTAMP} → log start,
     * {@link #LATEST_TIMESTAMP} → high watermark (or the last stable offset when
     * {@code readCommitted}), {@link #MAX_TIMESTAMP} → the first record holding the largest
     * timestamp. Other negative values → null.
     */
    public TimestampOffset offsetForTimestamp(long timestamp, boolean readCommitted) throws IOException {
        if (timestamp == EARLIEST_TIMESTAMP || timestamp == EARLIEST_LOCAL_TIMESTAMP) {
            return new TimestampOffset(logStartOffset, -1L, -1);
        }
        if (timestamp == LATEST_TIMESTAMP) {
            return new TimestampOffset(readCommitted ? lastStableOffset() : highWatermark(), -1L, -1);
        }
        if (timestamp < 0 && timestamp != MAX_TIMESTAMP) {
            return null;
        }
        LogPoint d = visible();
        TimestampLookup lookup = new TimestampLookup(segments, logStartOffset, d, highWatermark(d, logEndOffset));
        return timestamp == MAX_TIMESTAMP ? lookup.maxTimestamp() : lookup.firstAtOrAfter(timestamp);
    }

    // ------------------------------------------------------------------------------------------
    // Removing data: DeleteRecords, retention, truncation, compaction
    // ------------------------------------------------------------------------------------------

    /**
     * DeleteRecords: makes {@code offset} the new log start offset ({@code -1} = the high
     * watermark). Whole segments below it are deleted; the rest stays on disk but is no longer
     * served. Returns OFFSET_OUT_OF_RANGE beyond the high watermark.
     */
    public Errors deleteRecordsBefore(long offset) {
        return retention.deleteRecordsBefore(offset);
    }

    /** Retention (see {@link LogRetention#deleteExpiredSegments}); returns the number of segments deleted. */
    int deleteExpiredSegments(long nowMs) {
        return retention.deleteExpiredSegments(nowMs);
    }

    /**
     * Removes every record at or above {@code offset} (for replication); a batch straddling it is
     * removed whole, so the new log end may be lower than {@code offset}. Waiters above the new
     * end fail. A log of a {@link LogManager} returns once the recovery-point checkpoint no
     * longer names an offset above the new end.
     */
    public void truncateTo(long offset) throws IOException {
        LogTruncation.truncateTo(this, offset);
    }

    /**
     * Deletes every segment and starts the log empty at {@code offset} (log start = log end =
     * {@code offset}), with no producer state and no aborted transactions: a follower starting
     * at its leader's log start. Durable when it returns (see {@link LogTruncation}).
     */
    public void truncateFullyAndStartAt(long offset) throws IOException {
        LogTruncation.truncateFullyAndStartAt(this, offset);
    }

    /**
     * Whether this producer has a transaction open in this partition at this epoch: a
     * transactional batch of it was appended and no marker closed it since. A partition leader
     * whose transaction coordinator is on another node asks the coordinator only when not.
     */
    public boolean inOpenTransaction(long producerId, short producerEpoch) {
        appendLock.lock();
        try {
            ProducerStateEntry e = producers.entry(producerId);
            return e != null && e.epoch == producerEpoch && e.currentTxnFirstOffset >= 0;
        } finally {
            appendLock.unlock();
        }
    }

    /** The producers whose state this partition holds (DescribeProducers); a copy. */
    public List<ActiveProducer> activeProducers() {
        appendLock.lock();
        try {
            return producers.describe();
        } finally {
            appendLock.unlock();
        }
    }

    /** Drops the state of producers idle longer than {@code expirationMs}; returns how many. */
    int expireProducers(long nowMs, long expirationMs) {
        appendLock.lock();
        try {
            return producers.expire(nowMs, expirationMs);
        } finally {
            appendLock.unlock();
        }
    }

    /** The segments that are no longer active, oldest first (for the cleaner). */
    List<LogSegment> closedSegments() {
        List<LogSegment> out = new ArrayList<>();
        LogSegment act = active;
        for (LogSegment s : segments.values()) {
            if (s != act) {
                out.add(s);
            }
        }
        return out;
    }

    /** Installs a compaction's result (see {@link SegmentSwap}); false if the segments changed meanwhile. */
    boolean replaceSegments(List<LogSegment> olds, Path cleaned) throws IOException {
        return SegmentSwap.replace(this, olds, cleaned);
    }

    /**
     * Closes and deletes the files of segments taken out of the log (already marked deleted and
     * renamed, the renames made durable) after {@code file.delete.delay.ms}, so that slices
     * handed to readers stay valid meanwhile.
     */
    void scheduleDeletion(List<LogSegment> retired) {
        for (LogSegment seg : retired) {
            long base = seg.baseOffset;
            scheduler.schedule(() -> {
                try {
                    seg.close();
                    LogSegment.deleteFiles(dir, base, LogSegment.DELETED_SUFFIX);
                } catch (IOException e) {
                    LOG.warn("{}: could not delete segment {}", this, base, e);
                }
            }, config.fileDeleteDelayMs());
        }
    }

    /** Makes the renames of retired segments durable, then schedules their deletion. Not under the append lock. */
    void deleteRetired(List<LogSegment> retired) throws IOException {
        if (!retired.isEmpty()) {
            DurableFiles.fsyncDirectory(dir);
            scheduleDeletion(retired);
        }
    }

    LogSegment active() {
        return active;
    }

    // ------------------------------------------------------------------------------------------
    // Close and delete
    // ------------------------------------------------------------------------------------------

    /**
     * Clean close: flushes all data and indexes, writes a producer-state snapshot at the log end
     * and closes the files. Appends after close fail with KAFKA_STORAGE_ERROR. The append lock
     * is held only to stop appends; the forces run after it is released, under the flush lock.
     */
    @Override
    public void close() throws IOException {
        stateFiles.writeLock.lock();
        durability.flushLock.lock();
        try {
            byte[] snapshot;
            appendLock.lock();
            try {
                if (closing) {
                    return;
                }
                closing = true;
                // A log without data and without producers has no state worth a snapshot.
                boolean hasState = logEndOffset > segments.firstKey() || !producers.isEmpty();
                snapshot = corruption == null && hasState ? producers.snapshot() : null;
            } finally {
                appendLock.unlock();
            }
            // From here on the segment map and the offsets stay as they are: appends, rolls and
            // retention stop at `closing`, truncation and swaps wait for the flush lock.
            if (durability.failure() == null) {
                durability.forceAll(logEndOffset > segments.firstKey());
                stateFiles.close(logEndOffset, snapshot);
                durability.markDurable(LogPoint.endOf(active, logEndOffset));
            } else {
                stateFiles.discard();
            }
            closed = true;
            durability.failWaiters(-1L, new IOException("log closed"));
            for (LogSegment s : segments.values()) {
                s.close();
            }
        } finally {
            durability.flushLock.unlock();
            stateFiles.writeLock.unlock();
        }
    }

    /**
     * Closes without flushing anything (a simulated crash for tests, and log deletion). Takes the
     * flush lock so that a flush in progress finishes before the channels close, and the
     * state-file lock so that no state file is written afterwards.
     */
    void closeAbruptly() throws IOException {
        stateFiles.writeLock.lock();
        durability.flushLock.lock();
        try {
            appendLock.lock();
            try {
                closing = true;
                closed = true;
            } finally {
                appendLock.unlock();
            }
            stateFiles.discard();
            durability.failWaiters(-1L, new IOException("log closed"));
            // Outside the append lock: closing a channel waits for a force of it in progress.
            for (LogSegment s : segments.values()) {
                s.close();
            }
        } finally {
            durability.flushLock.unlock();
            stateFiles.writeLock.unlock();
        }
    }

    boolean isClosed() {
        return closed;
    }

    /** Closes the files and deletes the directory (for topic deletion). */
    void deleteFully() throws IOException {
        closeAbruptly();
        DurableFiles.deleteRecursively(dir);
    }

    @Override
    public String toString() {
        return topic + "-" + partition;
    }
}
