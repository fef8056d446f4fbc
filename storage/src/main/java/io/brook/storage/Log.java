package io.brook.storage;

import io.brook.wire.protocol.Errors;
import io.brook.wire.record.CorruptRecordException;
import io.brook.wire.record.Record;
import io.brook.wire.record.RecordBatch;
import io.brook.wire.record.TimestampType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

/**
 * The log of one partition: a sorted map of {@link LogSegment}s (base offset → segment), the last
 * of which is active and takes appends.
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
 * Appends, rolls, truncations, retention and segment swaps are serialised by one lock per log;
 * different logs never share a lock, so partitions append in parallel. Reads take no lock: the
 * segment map is a {@link ConcurrentSkipListMap}, offsets are volatile and a segment's visible
 * size is published after its bytes were written. Flushes run on the shared {@link Flusher}
 * thread under {@code flushLock} (taken before the log lock whenever both are needed), so they
 * never interleave with a truncation. A segment removed by retention or compaction is closed only
 * after {@code file.delete.delay.ms}, so slices handed to readers stay valid meanwhile; a removed
 * segment is never forced again (its data has left the log).
 *
 * <h2>I/O failures</h2>
 * An I/O error in a write, a roll, a flush ({@code force}, including an unchecked exception
 * thrown on the flush path) or retention takes the log offline for good, as Kafka does on a log
 * directory failure: every pending {@link #whenDurable} future completes exceptionally with the
 * {@link IOException} (the server answers KAFKA_STORAGE_ERROR), so does every later one, appends
 * and reads return KAFKA_STORAGE_ERROR, and the failure handler installed by the
 * {@link LogManager} takes every other log of the same data directory offline too. The durable
 * offset stays where the last successful force left it; a later clean close writes no
 * clean-shutdown marker, so the next start scans what was written after it. Waiters registered on
 * a closed log fail at once instead of waiting for a flush that will never come.
 */
public final class Log implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Log.class);
    static final String LOG_START_OFFSET_FILE = "log-start-offset";
    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    private final Path dir;
    private final String topic;
    private final int partition;
    private volatile LogConfig config;
    private final Clock clock;
    private final Scheduler scheduler;
    private final Flusher flusher;
    /** Writes zeros ahead of the active segment's data; null for none. */
    private final Preallocator preallocator;
    private volatile HighWatermarkListener listener;

    final ConcurrentSkipListMap<Long, LogSegment> segments = new ConcurrentSkipListMap<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final ReentrantLock flushLock = new ReentrantLock();
    /** Serialises retention and compaction of this log. */
    final ReentrantLock maintenanceLock = new ReentrantLock();
    /** The flusher's state of this log: idle, queued, being flushed, or being flushed with more to do. */
    final java.util.concurrent.atomic.AtomicInteger flushState = new java.util.concurrent.atomic.AtomicInteger();
    private final Queue<LogSegment> rolledUnflushed = new ConcurrentLinkedQueue<>();
    private final PriorityQueue<Waiter> waiters = new PriorityQueue<>();
    private final ProducerStateManager producers;
    private final TransactionIndex txnIndex;
    private final ProducerStateManager.Check check = new ProducerStateManager.Check();
    private final RecordBatch appendBatch = new RecordBatch();
    private final ByteBuffer[] oneSource = new ByteBuffer[1];
    private final ByteBuffer[] twoSources = new ByteBuffer[2];
    private final ByteBuffer scratchHeader = ByteBuffer.allocate(BatchHeader.HEADER_SIZE);

    private volatile LogSegment active;
    private volatile long logEndOffset;
    private volatile long logStartOffset;
    private volatile long firstUnstableOffset = -1L;
    private volatile LogPoint durable;
    /** The log end as last published by an append or truncation; what readers may see without fsync-on-ack. */
    private volatile LogPoint appended;
    private volatile Corruption corruption;
    private volatile IOException failure;
    /** Set (under the waiters' monitor) when failing starts, before {@link #failure} is published. */
    private boolean failing;
    private volatile boolean closed;
    private long unflushedMessages;
    private volatile long flushCount;
    /**
     * Moving average (weight 1/8) of the bytes each force of the active segment made durable:
     * preallocation pays off only while forces are small. Written by the flushing thread.
     */
    private volatile int bytesPerFlush;
    private volatile long lastFlushMs;
    /** Told (once) when this log fails with an I/O error; the manager takes the directory offline. */
    private volatile java.util.function.BiConsumer<Log, IOException> failureHandler;
    /**
     * Whether this log's directory was created by {@link #open} and its entry in the data
     * directory has not been fsynced yet: done by the first flush that makes data durable.
     */
    volatile boolean parentDirectoryDirty;
    /** Segments whose indexes had to be rebuilt when the log was opened (observable by tests). */
    int indexRebuilds;
    /** Test seam: runs on the flushing thread just before a segment is forced. */
    volatile java.util.function.Consumer<LogSegment> beforeSegmentFlush;

    /**
     * A log end and where it lies in the files. Published after the offsets it covers, so a
     * reader bounded by one never sees bytes that the reported end does not cover yet.
     */
    private record LogPoint(long offset, long segmentBase, int position) {
    }

    private record Waiter(long nextOffset, CompletableFuture<Void> future) implements Comparable<Waiter> {
        @Override
        public int compareTo(Waiter o) {
            return Long.compare(nextOffset, o.nextOffset);
        }
    }

    private Log(Path dir, String topic, int partition, LogConfig config, Clock clock, Scheduler scheduler,
            Flusher flusher, Preallocator preallocator) {
        this.dir = dir;
        this.topic = topic;
        this.partition = partition;
        this.config = config;
        this.clock = clock;
        this.scheduler = scheduler;
        this.flusher = flusher;
        this.preallocator = preallocator;
        this.producers = new ProducerStateManager(dir);
        this.txnIndex = new TransactionIndex(dir);
    }

    // ------------------------------------------------------------------------------------------
    // Opening and recovery
    // ------------------------------------------------------------------------------------------

    /**
     * Opens (creating if needed) the log in {@code dir}.
     *
     * @param recoveryPoint offset below which data is known to have been fsynced (0 if unknown)
     * @param cleanShutdown whether the previous run closed the logs cleanly; if not, every segment
     *                      from the one holding the recovery point on is scanned and checked
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
        log.parentDirectoryDirty = created;
        if (created) {
            log.initEmpty();
        } else {
            log.load(recoveryPoint, cleanShutdown);
        }
        return log;
    }

    /**
     * A log whose directory {@link #open} just created: there is nothing to list, recover, load
     * or replay, and nothing is forced (the first flush of data fsyncs the new file and
     * directory entries).
     */
    private void initEmpty() throws IOException {
        long now = clock.millis();
        LogSegment seg = LogSegment.create(dir, 0L, config, now);
        segments.put(0L, seg);
        active = seg;
        seg.prepareForAppend();
        logEndOffset = 0L;
        logStartOffset = 0L;
        firstUnstableOffset = -1L;
        durable = new LogPoint(0L, 0L, 0);
        appended = durable;
        lastFlushMs = now;
    }

    private void load(long recoveryPoint, boolean cleanShutdown) throws IOException {
        LogLoader loader = new LogLoader(dir, toString(), config, clock.millis(), segments);
        loader.loadSegments(recoveryPoint, cleanShutdown);
        corruption = loader.corruption();
        indexRebuilds = loader.indexRebuilds();
        active = segments.lastEntry().getValue();
        if (corruption == null) {
            active.prepareForAppend();
        }
        logEndOffset = active.nextOffset();
        logStartOffset = Math.min(Math.max(loader.persistedStart(), segments.firstKey()), logEndOffset);
        loadProducerState(logEndOffset);
        loader.forceRecovered(active);
        durable = new LogPoint(logEndOffset, active.baseOffset, active.size());
        appended = durable;
        lastFlushMs = clock.millis();
    }

    static void fsyncDirectory(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            // Not every platform can open a directory; the renames are still atomic.
        }
    }

    private void loadProducerState(long end) throws IOException {
        producers.deleteSnapshotsAbove(end);
        long from = segments.firstKey();
        List<Long> snaps = producers.snapshotOffsets();
        producers.clear();
        for (int i = snaps.size() - 1; i >= 0; i--) {
            long offset = snaps.get(i);
            String problem = offset < segments.firstKey() ? "below the first segment" : producers.readSnapshot(offset);
            if (problem == null) {
                from = offset;
                break;
            }
            LOG.warn("{}: ignoring producer snapshot at {}: {}", this, offset, problem);
            Files.deleteIfExists(ProducerStateManager.snapshotFile(dir, offset));
            producers.clear();
        }
        txnIndex.load(from);
        ByteBuffer hdr = ByteBuffer.allocate(LogSegment.LOCATE_BYTES);
        for (LogSegment seg : segments.values()) {
            if (seg.nextOffset() <= from) {
                continue;
            }
            int start = seg.baseOffset >= from ? 0 : Math.max(0, seg.findBatch(from, seg.size(), hdr));
            BatchScanner scanner = new BatchScanner(seg.channel(), start, seg.size(), false, Integer.MAX_VALUE);
            while (scanner.next()) {
                ByteBuffer b = scanner.buffer();
                int p = scanner.batchPosition();
                long base = BatchHeader.baseOffset(b, p);
                if (base < from) {
                    continue;
                }
                if (BatchHeader.isControl(b, p) && scanner.loadWhole()) {
                    b = scanner.buffer();
                    p = scanner.batchPosition();
                    recordAbort(b, p, base);
                }
                producers.update(b, p, base, BatchHeader.lastOffset(b, p));
            }
        }
        producers.onLogStartOffsetIncremented(logStartOffset);
        firstUnstableOffset = producers.firstUnstableOffset();
    }

    private void writeLogStartOffset(long offset) throws IOException {
        Path f = dir.resolve(LOG_START_OFFSET_FILE);
        Path tmp = dir.resolve(LOG_START_OFFSET_FILE + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ch.write(ByteBuffer.wrap((offset + "\n").getBytes(StandardCharsets.UTF_8)));
            ch.force(true);
        }
        Files.move(tmp, f, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
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
        int p = batch.position();
        int bytes = batch.remaining();
        if (bytes < BatchHeader.HEADER_SIZE || BatchHeader.sizeInBytes(batch, p) != bytes) {
            return AppendResult.error(Errors.INVALID_RECORD, "a produce entry must hold exactly one record batch",
                    logStartOffset);
        }
        LogConfig cfg = config;
        if (bytes > cfg.maxMessageBytes()) {
            return AppendResult.error(Errors.MESSAGE_TOO_LARGE, "the batch of " + bytes
                    + " bytes exceeds max.message.bytes " + cfg.maxMessageBytes(), logStartOffset);
        }
        if (!cfg.logAppendTime() && (cfg.timestampBeforeMaxMs() != Long.MAX_VALUE
                || cfg.timestampAfterMaxMs() != Long.MAX_VALUE)) {
            AppendResult bad = checkTimestamps(cfg, batch, p);
            if (bad != null) {
                return bad;
            }
        }
        if (cfg.compact() && !BatchHeader.isControl(batch, p)) {
            AppendResult bad = checkKeys(batch, p);
            if (bad != null) {
                return bad;
            }
        }
        AppendResult result;
        boolean requestFlush;
        lock.lock();
        try {
            if (closed || failure != null || corruption != null) {
                return AppendResult.error(Errors.KAFKA_STORAGE_ERROR, storageProblem(), logStartOffset);
            }
            producers.check(batch, p, check);
            if (check.error != Errors.NONE) {
                return AppendResult.error(check.error, check.message, logStartOffset);
            }
            if (check.duplicate) {
                return new AppendResult(Errors.NONE, null, check.duplicateFirstOffset, check.duplicateLastOffset,
                        cfg.logAppendTime() ? check.duplicateTimestamp : -1L, logStartOffset, true);
            }
            long now = clock.millis();
            long base = logEndOffset;
            long last = base + BatchHeader.lastOffsetDelta(batch, p);
            long maxTs = cfg.logAppendTime() ? now : BatchHeader.maxTimestamp(batch, p);
            maybeRoll(cfg, bytes, base, last, maxTs, now);
            ByteBuffer[] srcs = assign(batch, p, bytes, base, leaderEpoch, cfg.logAppendTime(), now);
            try {
                active.append(srcs, bytes, base, last, maxTs);
                if (wantsPreallocation(cfg)) {
                    preallocator.maybeExtend(active, cfg.segmentBytes());
                }
            } catch (IOException e) {
                fail(e);
                return AppendResult.error(Errors.KAFKA_STORAGE_ERROR, "write failed: " + e.getMessage(),
                        logStartOffset);
            } finally {
                batch.position(p);
            }
            ByteBuffer written = srcs.length == 1 ? batch : scratchHeader;
            if (BatchHeader.isControl(batch, p)) {
                try {
                    recordAbort(batch, p, base);
                } catch (IOException e) {
                    LOG.warn("{}: could not record an aborted transaction", this, e);
                }
            }
            producers.update(written, srcs.length == 1 ? p : 0, base, last);
            firstUnstableOffset = producers.firstUnstableOffset();
            logEndOffset = last + 1;
            appended = new LogPoint(last + 1, active.baseOffset, active.size());
            unflushedMessages += last - base + 1;
            requestFlush = cfg.flushOnAck() || unflushedMessages >= cfg.flushMessages();
            result = new AppendResult(Errors.NONE, null, base, last, cfg.logAppendTime() ? now : -1L,
                    logStartOffset, false);
        } finally {
            lock.unlock();
        }
        if (requestFlush && flusher != null) {
            flusher.request(this);
        }
        HighWatermarkListener l = listener;
        if (l != null && !cfg.flushOnAck()) {
            l.highWatermarkAdvanced(this, result.lastOffset() + 1);
        }
        return result;
    }

    /** Sets offset, epoch and (LogAppendTime) timestamp; returns the buffers to write. */
    private ByteBuffer[] assign(ByteBuffer batch, int p, int bytes, long base, int leaderEpoch, boolean logAppendTime,
            long now) {
        if (!batch.isReadOnly()) {
            BatchHeader.setBaseOffset(batch, p, base);
            BatchHeader.setLeaderEpoch(batch, p, leaderEpoch);
            if (logAppendTime) {
                appendBatch.wrap(batch, p).setMaxTimestamp(TimestampType.LOG_APPEND_TIME, now);
            }
            oneSource[0] = batch;
            return oneSource;
        }
        ByteBuffer h = scratchHeader;
        h.clear();
        for (int i = 0; i < BatchHeader.HEADER_SIZE; i++) {
            h.put(i, batch.get(p + i));
        }
        BatchHeader.setBaseOffset(h, 0, base);
        BatchHeader.setLeaderEpoch(h, 0, leaderEpoch);
        if (logAppendTime) {
            h.putShort(BatchHeader.ATTRIBUTES,
                    (short) (BatchHeader.attributes(h, 0) | BatchHeader.TIMESTAMP_TYPE_MASK));
            h.putLong(BatchHeader.MAX_TIMESTAMP, now);
            CRC32C crc = new CRC32C();
            ByteBuffer hv = h.duplicate();
            hv.position(BatchHeader.ATTRIBUTES).limit(BatchHeader.HEADER_SIZE);
            crc.update(hv);
            ByteBuffer body = batch.duplicate();
            body.position(p + BatchHeader.HEADER_SIZE).limit(p + bytes);
            crc.update(body);
            h.putInt(BatchHeader.CRC, (int) crc.getValue());
        }
        h.position(0).limit(BatchHeader.HEADER_SIZE);
        batch.position(p + BatchHeader.HEADER_SIZE);
        twoSources[0] = h;
        twoSources[1] = batch;
        return twoSources;
    }

    /**
     * {@code message.timestamp.before.max.ms} / {@code after.max.ms} (CreateTime topics): the
     * batch's first and largest timestamps must lie within the allowed distance from now.
     */
    private AppendResult checkTimestamps(LogConfig cfg, ByteBuffer batch, int p) {
        long now = clock.millis();
        long[] stamps = {BatchHeader.baseTimestamp(batch, p), BatchHeader.maxTimestamp(batch, p)};
        for (long ts : stamps) {
            if (ts < 0) {
                continue;
            }
            if (now - ts > cfg.timestampBeforeMaxMs() || ts - now > cfg.timestampAfterMaxMs()) {
                return AppendResult.error(Errors.INVALID_TIMESTAMP, "timestamp " + ts + " of a record in " + this
                        + " is out of the accepted range around " + now, logStartOffset);
            }
        }
        return null;
    }

    /**
     * If the control batch at {@code p} (whole in {@code b}) is an ABORT marker of a producer with
     * an open transaction, records that transaction. Before producer state sees the marker.
     */
    private void recordAbort(ByteBuffer b, int p, long markerOffset) throws IOException {
        ProducerStateEntry e = producers.entry(BatchHeader.producerId(b, p));
        if (e == null || e.currentTxnFirstOffset < 0) {
            return;
        }
        try {
            Iterator<Record> it = new RecordBatch().wrap(b, p).records();
            if (it.hasNext()) {
                ByteBuffer key = it.next().key();
                // Control record key: version int16, type int16 (0 = ABORT, 1 = COMMIT).
                if (key != null && key.remaining() >= 4 && key.getShort(key.position() + 2) == 0) {
                    txnIndex.add(new AbortedTransaction(e.producerId, e.currentTxnFirstOffset, markerOffset));
                }
            }
        } catch (CorruptRecordException ex) {
            LOG.warn("{}: unreadable control batch at offset {}", this, markerOffset);
        }
    }

    /**
     * For a READ_COMMITTED Fetch: the aborted transactions overlapping offsets
     * [{@code fetchOffset}, {@code upperBound}) (upperBound = the offset after the returned
     * data, or the last stable offset).
     */
    public List<AbortedTransaction> abortedTransactions(long fetchOffset, long upperBound) {
        return txnIndex.collect(fetchOffset, upperBound);
    }

    /** Kafka rejects keyless records on compacted topics (INVALID_RECORD). */
    private AppendResult checkKeys(ByteBuffer batch, int p) {
        RecordBatch rb = new RecordBatch().wrap(batch, p);
        try {
            Iterator<Record> it = rb.records();
            while (it.hasNext()) {
                if (!it.next().hasKey()) {
                    return AppendResult.error(Errors.INVALID_RECORD,
                            "Compacted topic cannot accept message without key in topic partition " + this + ".",
                            logStartOffset);
                }
            }
        } catch (CorruptRecordException e) {
            return AppendResult.error(Errors.CORRUPT_MESSAGE, e.getMessage(), logStartOffset);
        }
        return null;
    }

    private void maybeRoll(LogConfig cfg, int bytes, long base, long last, long maxTs, long now) {
        LogSegment seg = active;
        if (seg.isEmpty()) {
            return;
        }
        long rollTs = seg.rollingTimestamp();
        boolean byTime = (maxTs >= 0 && rollTs >= 0 ? maxTs - rollTs : now - rollTs)
                > cfg.segmentMs() - Math.min(cfg.segmentJitterMs(), cfg.segmentMs() - 1);
        if ((long) seg.size() + bytes > cfg.segmentBytes() || byTime || seg.indexesFull()
                || last - seg.baseOffset > Integer.MAX_VALUE) {
            try {
                roll(base, now);
            } catch (IOException e) {
                LOG.error("{}: roll failed, appending to the current segment", this, e);
            }
        }
    }

    /** Makes a new active segment starting at {@code base}. Under the lock. */
    private void roll(long base, long now) throws IOException {
        LogSegment old = active;
        LogSegment seg = LogSegment.create(dir, base, config, now);
        old.onBecomeInactive();
        old.trimPreallocation();
        rolledUnflushed.add(old);
        segments.put(base, seg);
        active = seg;
        producers.writeSnapshot(base, false);
        producers.retainNewest(3);
    }

    /**
     * Whether zeros should be kept ahead of the active segment: a preallocator is there, answers
     * wait for fsync, and this log's forces are small enough on average for it to pay off.
     */
    boolean wantsPreallocation(LogConfig cfg) {
        return preallocator != null && cfg.flushOnAck() && bytesPerFlush < Preallocator.WORTH_BELOW_BYTES_PER_FLUSH;
    }

    /** Starts a new segment now if the active one holds data (used by retention of the active segment). */
    void rollIfNotEmpty() throws IOException {
        lock.lock();
        try {
            if (!active.isEmpty()) {
                roll(logEndOffset, clock.millis());
            }
        } finally {
            lock.unlock();
        }
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
        if (!config.flushOnAck() || durable.offset() >= nextOffset) {
            return DONE;
        }
        CompletableFuture<Void> f = new CompletableFuture<>();
        synchronized (waiters) {
            if (failure != null) {
                f.completeExceptionally(failure);
                return f;
            }
            if (closed) {
                f.completeExceptionally(new IOException("the log of " + this + " is closed"));
                return f;
            }
            if (durable.offset() >= nextOffset) {
                return DONE;
            }
            waiters.add(new Waiter(nextOffset, f));
        }
        if (flusher != null) {
            flusher.request(this);
        }
        return f;
    }

    /**
     * Makes everything appended so far durable: forces the segments rolled since the last flush
     * (and writes their indexes), then the active one, then publishes the captured log end as the
     * durable offset and completes the waiters it covers. Runs on the flusher thread (or at
     * close); appenders keep appending meanwhile.
     */
    void flush() {
        flushLock.lock();
        try {
            if (failure != null || closed) {
                return;
            }
            long end;
            LogSegment act;
            int position;
            lock.lock();
            try {
                end = logEndOffset;
                act = active;
                position = act.size();
                unflushedMessages = 0;
            } finally {
                lock.unlock();
            }
            LogSegment s;
            while ((s = rolledUnflushed.peek()) != null) {
                if (segments.get(s.baseOffset) == s) {
                    runBeforeSegmentFlush(s);
                    s.flush();
                    s.flushIndexes();
                }
                rolledUnflushed.poll();
            }
            if (end > durable.offset()) {
                runBeforeSegmentFlush(act);
                act.flush();
                syncParentDirectory();
                flushCount++;
                LogPoint before = durable;
                if (before.segmentBase() == act.baseOffset) {
                    bytesPerFlush += (position - before.position() - bytesPerFlush) / 8;
                }
                durable = new LogPoint(end, act.baseOffset, position);
            }
            lastFlushMs = clock.millis();
            HighWatermarkListener l = listener;
            if (l != null && config.flushOnAck()) {
                try {
                    l.highWatermarkAdvanced(this, end);
                } catch (RuntimeException e) {
                    LOG.error("{}: high-watermark listener failed", this, e);
                }
            }
            completeWaiters(end);
        } catch (IOException e) {
            fail(e);
        } catch (RuntimeException e) {
            // Whatever went wrong, nobody may wait for a durability that did not happen.
            fail(e.getCause() instanceof IOException io ? io : new IOException("flush failed", e));
        } finally {
            flushLock.unlock();
        }
    }

    /**
     * The entry of a newly created log directory in the data directory is fsynced once, before
     * the first data of the log is called durable (not at creation: creating many partitions
     * would otherwise cost one directory fsync each).
     */
    private void syncParentDirectory() {
        if (parentDirectoryDirty) {
            fsyncDirectory(dir.toAbsolutePath().getParent());
            parentDirectoryDirty = false;
        }
    }

    private void runBeforeSegmentFlush(LogSegment s) {
        java.util.function.Consumer<LogSegment> hook = beforeSegmentFlush;
        if (hook != null) {
            hook.accept(s);
        }
    }

    /** How many times the active segment was forced (each covers every append before it). */
    long flushCount() {
        return flushCount;
    }

    /** Asks the flusher for a flush if {@code flush.ms} has passed since the last one and data is waiting. */
    void maybeFlushByTime(long nowMs) {
        if (logEndOffset > durable.offset() && nowMs - lastFlushMs >= config.flushMs() && flusher != null) {
            flusher.request(this);
        }
    }

    private void completeWaiters(long end) {
        List<CompletableFuture<Void>> done = null;
        synchronized (waiters) {
            while (!waiters.isEmpty() && waiters.peek().nextOffset() <= end) {
                if (done == null) {
                    done = new ArrayList<>();
                }
                done.add(waiters.poll().future());
            }
        }
        if (done != null) {
            for (CompletableFuture<Void> f : done) {
                f.complete(null);
            }
        }
    }

    private void failWaiters(long above, Throwable cause) {
        List<CompletableFuture<Void>> failed = new ArrayList<>();
        synchronized (waiters) {
            waiters.removeIf(w -> {
                if (w.nextOffset() > above) {
                    failed.add(w.future());
                    return true;
                }
                return false;
            });
        }
        for (CompletableFuture<Void> f : failed) {
            f.completeExceptionally(cause);
        }
    }

    private void fail(IOException e) {
        synchronized (waiters) {
            if (failing) {
                return;
            }
            failing = true;
        }
        LOG.error("{}: I/O failure, the log goes offline", this, e);
        // The directory goes offline before this log's failure becomes visible (to waiters and
        // to whenDurable), so whoever reacts to it already sees every log of the directory offline.
        java.util.function.BiConsumer<Log, IOException> h = failureHandler;
        if (h != null) {
            try {
                h.accept(this, e);
            } catch (RuntimeException ex) {
                LOG.error("{}: failure handler failed", this, ex);
            }
        }
        synchronized (waiters) {
            failure = e;
        }
        failWaiters(-1L, e);
    }

    /** Takes this log offline because another log of its data directory failed (no handler call). */
    void failWithDirectory(IOException cause) {
        synchronized (waiters) {
            if (failing) {
                return;
            }
            failing = true;
            failure = cause;
        }
        failWaiters(-1L, cause);
    }

    /** Installs the handler told when this log fails with an I/O error. */
    void setFailureHandler(java.util.function.BiConsumer<Log, IOException> h) {
        this.failureHandler = h;
    }

    /** Null while healthy, else the I/O error that took this log offline. */
    IOException failure() {
        return failure;
    }

    private String storageProblem() {
        if (closed) {
            return "the log of " + this + " is closed";
        }
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
        long start = logStartOffset;
        // The point before the end: it is published after the end, so leo >= d.offset() here and
        // the slice bounded by d never reaches past the high watermark reported with it.
        LogPoint d = visible();
        long leo = logEndOffset;
        long hw = highWatermark(d, leo);
        long lso = lastStableOffset(hw);
        if (offset < start || offset > leo) {
            return new LogReadResult(Errors.OFFSET_OUT_OF_RANGE, null, hw, start, lso, leo);
        }
        Corruption c = corruption;
        if ((c != null && offset >= c.offset()) || failure != null) {
            return new LogReadResult(Errors.KAFKA_STORAGE_ERROR, null, hw, start, lso, leo);
        }
        long upper = readCommitted ? lso : hw;
        if (offset >= upper) {
            return new LogReadResult(Errors.NONE, null, hw, start, lso, leo);
        }
        ByteBuffer hdr = ByteBuffer.allocate(LogSegment.LOCATE_BYTES);
        Map.Entry<Long, LogSegment> e = segments.floorEntry(offset);
        if (e == null) {
            e = segments.firstEntry();
        }
        try {
            while (e != null) {
                LogSegment seg = e.getValue();
                if (seg.baseOffset >= upper) {
                    break;
                }
                int limit = readLimit(seg, d);
                if (upper < hw && upper < seg.nextOffset()) {
                    // The last stable offset is the base of an open transaction's first batch.
                    int p = seg.findBatch(upper, limit, hdr);
                    if (p >= 0) {
                        limit = Math.min(limit, p);
                    }
                }
                FileRecords r = seg.read(offset, maxBytes, limit, minOneBatch, hdr);
                if (r != null) {
                    return new LogReadResult(Errors.NONE, r, hw, start, lso, leo);
                }
                e = segments.higherEntry(seg.baseOffset);
            }
        } catch (IOException ex) {
            LOG.warn("{}: read at {} failed", this, offset, ex);
            return new LogReadResult(Errors.KAFKA_STORAGE_ERROR, null, hw, start, lso, leo);
        }
        return new LogReadResult(Errors.NONE, null, hw, start, lso, leo);
    }

    /** File position up to which {@code seg} may be served. */
    private int readLimit(LogSegment seg, LogPoint d) {
        if (seg.baseOffset < d.segmentBase()) {
            return seg.size();
        }
        return seg.baseOffset == d.segmentBase() ? Math.min(d.position(), seg.size()) : 0;
    }

    private long highWatermark(LogPoint d, long leo) {
        return Math.min(d.offset(), leo);
    }

    /** The end readers may see: the durable one, or with fsync-on-ack off the appended one. */
    private LogPoint visible() {
        return config.flushOnAck() ? durable : appended;
    }

    private long lastStableOffset(long hw) {
        long fu = firstUnstableOffset;
        return fu >= 0 ? Math.min(fu, hw) : hw;
    }

    // ------------------------------------------------------------------------------------------
    // Offsets and timestamps
    // ------------------------------------------------------------------------------------------

    public String topic() { return topic; }

    public int partition() { return partition; }

    public Path dir() { return dir; }

    public LogConfig config() { return config; }

    /** Replaces the settings; they apply from the next append, roll or background pass. */
    public void updateConfig(LogConfig newConfig) {
        boolean wasFlushOnAck = config.flushOnAck();
        this.config = newConfig;
        if (newConfig.flushOnAck() && !wasFlushOnAck && flusher != null) {
            // The high watermark now follows the durable offset, which may lag: catch it up.
            flusher.request(this);
        }
    }

    /** Sets the one listener told about high-watermark advances (null to remove). */
    public void setHighWatermarkListener(HighWatermarkListener l) {
        this.listener = l;
    }

    public long logStartOffset() { return logStartOffset; }

    public long logEndOffset() { return logEndOffset; }

    public long highWatermark() { return highWatermark(visible(), logEndOffset); }

    /** The first offset of the earliest open transaction, capped by the high watermark. */
    public long lastStableOffset() { return lastStableOffset(highWatermark()); }

    /** Everything below this offset has been fsynced (the recovery point). */
    public long durableOffset() { return durable.offset(); }

    /** Total bytes of all segment files. */
    public long sizeInBytes() {
        long n = 0;
        for (LogSegment s : segments.values()) {
            n += s.size();
        }
        return n;
    }

    public int segmentCount() { return segments.size(); }

    /** Null if healthy, else the corrupt spot that stops this log from serving past it. */
    public String corruption() {
        Corruption c = corruption;
        return c == null ? null : c.toString();
    }

    /** Earliest: ListOffsets timestamp -2 (also -4 without tiered storage). */
    public static final long EARLIEST_TIMESTAMP = -2L;
    /** Latest: ListOffsets timestamp -1. */
    public static final long LATEST_TIMESTAMP = -1L;
    /** The record with the largest timestamp: ListOffsets timestamp -3 (KIP-734). */
    public static final long MAX_TIMESTAMP = -3L;
    /** Earliest local: same as earliest here. */
    public static final long EARLIEST_LOCAL_TIMESTAMP = -4L;

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
        if (timestamp == MAX_TIMESTAMP) {
            return maxTimestampOffset();
        }
        if (timestamp < 0) {
            return null;
        }
        LogPoint d = visible();
        long hw = highWatermark(d, logEndOffset);
        long start = logStartOffset;
        for (LogSegment seg : segments.values()) {
            if (seg.baseOffset >= hw) {
                break;
            }
            if (seg.maxTimestamp() < timestamp || seg.nextOffset() <= start) {
                continue;
            }
            long from = Math.max(seg.timeIndex.lookup(timestamp), start);
            TimestampOffset found = scanForTimestamp(seg, from, readLimit(seg, d), hw, timestamp, false);
            if (found != null) {
                return found;
            }
        }
        return null;
    }

    private TimestampOffset maxTimestampOffset() throws IOException {
        LogPoint d = visible();
        long hw = highWatermark(d, logEndOffset);
        LogSegment best = null;
        for (LogSegment seg : segments.values()) {
            if (seg.baseOffset >= hw) {
                break;
            }
            if (seg.nextOffset() > logStartOffset && seg.maxTimestamp() >= 0
                    && (best == null || seg.maxTimestamp() > best.maxTimestamp())) {
                best = seg;
            }
        }
        if (best != null) {
            long from = Math.max(best.timeIndex.lookup(best.maxTimestamp()), logStartOffset);
            TimestampOffset found = scanForTimestamp(best, from, readLimit(best, d), hw, best.maxTimestamp(), true);
            if (found != null) {
                return found;
            }
        }
        // The largest timestamp lies above the high watermark: find the largest below it.
        TimestampOffset result = null;
        long max = -1L;
        for (LogSegment seg : segments.values()) {
            if (seg.baseOffset >= hw) {
                break;
            }
            BatchScanner sc = new BatchScanner(seg.channel(), 0, readLimit(seg, d), false, Integer.MAX_VALUE);
            while (sc.next()) {
                long ts = BatchHeader.maxTimestamp(sc.buffer(), sc.batchPosition());
                if (ts > max && BatchHeader.lastOffset(sc.buffer(), sc.batchPosition()) >= logStartOffset) {
                    max = ts;
                    result = new TimestampOffset(seg.baseOffset, ts, -1);
                }
            }
        }
        if (result == null) {
            return new TimestampOffset(-1L, -1L, -1);
        }
        for (LogSegment seg : segments.tailMap(result.offset(), true).values()) {
            TimestampOffset found = scanForTimestamp(seg, logStartOffset, readLimit(seg, d), hw, max, true);
            if (found != null) {
                return found;
            }
        }
        return new TimestampOffset(-1L, -1L, -1);
    }

    /**
     * Scans {@code seg} from the batch holding {@code from} for the first record at or above
     * {@code from} (and below {@code hw}) whose timestamp is at or above {@code target} (or equal
     * to it when {@code exact}).
     */
    private TimestampOffset scanForTimestamp(LogSegment seg, long from, int limit, long hw, long target, boolean exact)
            throws IOException {
        ByteBuffer hdr = ByteBuffer.allocate(LogSegment.LOCATE_BYTES);
        int position = seg.findBatch(from, limit, hdr);
        if (position < 0) {
            return null;
        }
        BatchScanner scanner = new BatchScanner(seg.channel(), position, limit, true, Integer.MAX_VALUE);
        RecordBatch rb = new RecordBatch();
        while (scanner.next()) {
            ByteBuffer b = scanner.buffer();
            int p = scanner.batchPosition();
            long batchMax = BatchHeader.maxTimestamp(b, p);
            if (BatchHeader.baseOffset(b, p) >= hw) {
                return null;
            }
            if (batchMax < target || BatchHeader.lastOffset(b, p) < from || BatchHeader.isControl(b, p)) {
                continue;
            }
            int epoch = BatchHeader.leaderEpoch(b, p);
            if (BatchHeader.isLogAppendTime(b, p)) {
                return new TimestampOffset(Math.max(BatchHeader.baseOffset(b, p), from), batchMax, epoch);
            }
            Iterator<Record> it = rb.wrap(b, p).records();
            while (it.hasNext()) {
                Record r = it.next();
                if (r.offset() >= from && (exact ? r.timestamp() == target : r.timestamp() >= target)) {
                    return new TimestampOffset(r.offset(), r.timestamp(), epoch);
                }
            }
        }
        return null;
    }

    // ------------------------------------------------------------------------------------------
    // Log start offset, truncation, retention
    // ------------------------------------------------------------------------------------------

    /**
     * DeleteRecords: makes {@code offset} the new log start offset ({@code -1} = the high
     * watermark). Whole segments below it are deleted; the rest stays on disk but is no longer
     * served. Returns OFFSET_OUT_OF_RANGE beyond the high watermark.
     */
    public Errors deleteRecordsBefore(long offset) {
        long hw = highWatermark();
        long target = offset == -1L ? hw : offset;
        if (target < 0 || target > hw) {
            return Errors.OFFSET_OUT_OF_RANGE;
        }
        lock.lock();
        try {
            if (target > logStartOffset) {
                advanceLogStartOffset(target);
            }
        } catch (IOException e) {
            fail(e);
            return Errors.KAFKA_STORAGE_ERROR;
        } finally {
            lock.unlock();
        }
        // Whole segments below the new start go now unless compaction or retention is busy with
        // this log (then their next pass removes them): a request thread never waits for them.
        if (maintenanceLock.tryLock()) {
            try {
                deleteSegments(s -> s.nextOffset() <= logStartOffset, false);
            } finally {
                maintenanceLock.unlock();
            }
        }
        return Errors.NONE;
    }

    /** Under the lock. */
    private void advanceLogStartOffset(long offset) throws IOException {
        logStartOffset = offset;
        writeLogStartOffset(offset);
        txnIndex.dropBefore(offset);
        producers.onLogStartOffsetIncremented(offset);
        firstUnstableOffset = producers.firstUnstableOffset();
    }

    /**
     * Removes every record at or above {@code offset} (for replication); a batch straddling it is
     * removed whole, so the new log end may be lower than {@code offset}. Waiters above the new
     * end fail.
     */
    public void truncateTo(long offset) throws IOException {
        flushLock.lock();
        lock.lock();
        try {
            if (offset >= logEndOffset) {
                return;
            }
            if (offset < segments.firstKey()) {
                offset = segments.firstKey();
            }
            for (LogSegment seg : new ArrayList<>(segments.tailMap(offset, false).values())) {
                removeSegment(seg);
            }
            LogSegment last = segments.lastEntry().getValue();
            last.truncateTo(offset);
            last.prepareForAppend();
            active = last;
            logEndOffset = last.nextOffset();
            appended = new LogPoint(logEndOffset, last.baseOffset, last.size());
            if (logStartOffset > logEndOffset) {
                logStartOffset = logEndOffset;
                writeLogStartOffset(logEndOffset);
            }
            if (durable.offset() > logEndOffset) {
                durable = new LogPoint(logEndOffset, last.baseOffset, last.size());
            }
            if (corruption != null && logEndOffset <= corruption.offset()) {
                // The corrupt bytes lay above the new end and were cut off with it.
                corruption = null;
            }
            loadProducerState(logEndOffset);
            failWaiters(logEndOffset, new IOException("log truncated to " + logEndOffset));
        } finally {
            lock.unlock();
            flushLock.unlock();
        }
    }

    /** Under the lock: takes a segment out of the map; its files are closed and deleted later. */
    private void removeSegment(LogSegment seg) throws IOException {
        segments.remove(seg.baseOffset, seg);
        seg.markDeleted();
        seg.renameWithSuffix(LogSegment.DELETED_SUFFIX);
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

    /**
     * Retention: deletes the oldest segments while they are older than {@code retention.ms} (by
     * their largest timestamp) or the log is over {@code retention.bytes}, or they lie wholly
     * below the log start offset; only data below the high watermark goes. If every segment
     * qualifies, the active one is rolled first so that the log keeps a segment. Runs on the
     * background thread, never on the append path. Returns the number deleted.
     */
    int deleteExpiredSegments(long nowMs) {
        LogConfig cfg = config;
        int n = deleteSegments(s -> s.nextOffset() <= logStartOffset, false);
        if (!cfg.delete()) {
            return n;
        }
        if (cfg.retentionMs() >= 0) {
            n += deleteSegments(s -> nowMs - retentionTimestamp(s) > cfg.retentionMs(), true);
        }
        if (cfg.retentionBytes() >= 0) {
            long[] excess = {sizeInBytes() - cfg.retentionBytes()};
            n += deleteSegments(s -> {
                if (excess[0] - s.size() >= 0) {
                    excess[0] -= s.size();
                    return true;
                }
                return false;
            }, true);
        }
        return n;
    }

    /** Drops the state of producers idle longer than {@code expirationMs}; returns how many. */
    int expireProducers(long nowMs, long expirationMs) {
        lock.lock();
        try {
            return producers.expire(nowMs, expirationMs);
        } finally {
            lock.unlock();
        }
    }

    /** A segment's age for time retention: its largest record timestamp, else its file's mtime. */
    private static long retentionTimestamp(LogSegment s) {
        if (s.maxTimestamp() >= 0) {
            return s.maxTimestamp();
        }
        try {
            return Files.getLastModifiedTime(s.logFile()).toMillis();
        } catch (IOException e) {
            return Long.MAX_VALUE;
        }
    }

    private int deleteSegments(java.util.function.Predicate<LogSegment> shouldDelete, boolean mayRollActive) {
        maintenanceLock.lock();
        try {
            int deleted = 0;
            while (true) {
                LogSegment first;
                lock.lock();
                try {
                    if (closed) {
                        return deleted;
                    }
                    first = segments.firstEntry().getValue();
                    long hw = highWatermark();
                    // Compaction can empty a closed segment. It goes together with the segment
                    // after it, never alone: deleting it alone would move the log start past
                    // offsets that consumers of a compacted topic may still hold.
                    LogSegment emptyBefore = null;
                    if (first.isEmpty() && first != active) {
                        emptyBefore = first;
                        first = segments.higherEntry(first.baseOffset).getValue();
                    }
                    if (first.isEmpty() || first.nextOffset() > hw || !shouldDelete.test(first)) {
                        return deleted;
                    }
                    if (first == active) {
                        if (!mayRollActive) {
                            return deleted;
                        }
                        roll(logEndOffset, clock.millis());
                    }
                    if (emptyBefore != null) {
                        removeSegment(emptyBefore);
                        deleted++;
                    }
                    removeSegment(first);
                    deleted++;
                    long next = segments.firstKey();
                    if (next > logStartOffset) {
                        advanceLogStartOffset(next);
                    }
                    LOG.info("{}: deleted segment {} by retention", this, first.baseOffset);
                } finally {
                    lock.unlock();
                }
            }
        } catch (IOException e) {
            fail(e);
            return 0;
        } finally {
            maintenanceLock.unlock();
        }
    }

    // ------------------------------------------------------------------------------------------
    // Compaction support (used by LogCleaner under the maintenance lock)
    // ------------------------------------------------------------------------------------------

    /** The segments that are no longer active, oldest first. */
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

    /**
     * Replaces the consecutive closed segments {@code olds} by the one file
     * {@code X.log.cleaned} the cleaner wrote and forced (X = the first one's base offset, the
     * file ends with a batch holding the group's last offset): renames it to {@code X.log.swap}
     * (the commit point), moves the old files aside as {@code .deleted}, moves the swap file to
     * {@code X.log}, rebuilds its indexes and puts it into the map in place of the olds. Returns
     * false (and deletes the cleaned file) if the segments changed meanwhile.
     */
    boolean replaceSegments(List<LogSegment> olds, Path cleaned) throws IOException {
        lock.lock();
        try {
            for (LogSegment old : olds) {
                if (segments.get(old.baseOffset) != old || old == active) {
                    Files.deleteIfExists(cleaned);
                    return false;
                }
            }
            LogSegment first = olds.get(0);
            Path swap = LogSegment.file(dir, first.baseOffset, LogSegment.LOG_SUFFIX + LogSegment.SWAP_SUFFIX);
            Files.move(cleaned, swap, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            fsyncDirectory(dir);
            for (LogSegment old : olds) {
                old.markDeleted();
                old.renameWithSuffix(LogSegment.DELETED_SUFFIX);
            }
            Files.move(swap, first.logFile(), StandardCopyOption.ATOMIC_MOVE);
            fsyncDirectory(dir);
            LogSegment fresh = LogSegment.open(dir, first.baseOffset, config, clock.millis());
            Corruption c = fresh.recover(null);
            if (c != null) {
                throw new IOException("cleaned segment is unsound: " + c);
            }
            fresh.flushIndexes();
            segments.put(first.baseOffset, fresh);
            for (int i = 1; i < olds.size(); i++) {
                segments.remove(olds.get(i).baseOffset, olds.get(i));
            }
            for (LogSegment old : olds) {
                long base = old.baseOffset;
                scheduler.schedule(() -> {
                    try {
                        old.close();
                        LogSegment.deleteFiles(dir, base, LogSegment.DELETED_SUFFIX);
                    } catch (IOException e) {
                        LOG.warn("{}: could not delete replaced segment {}", this, base, e);
                    }
                }, config.fileDeleteDelayMs());
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    Clock clock() {
        return clock;
    }

    LogSegment active() {
        return active;
    }

    // ------------------------------------------------------------------------------------------
    // Close and delete
    // ------------------------------------------------------------------------------------------

    /**
     * Clean close: flushes all data and indexes, writes a producer-state snapshot at the log end
     * and closes the files. Appends after close fail with KAFKA_STORAGE_ERROR.
     */
    @Override
    public void close() throws IOException {
        flushLock.lock();
        lock.lock();
        try {
            if (closed) {
                return;
            }
            if (failure == null) {
                // Only what changed since its last flush is forced or written.
                for (LogSegment s : segments.values()) {
                    s.trimPreallocation();
                    s.flush();
                    s.flushIndexes();
                }
                if (logEndOffset > segments.firstKey()) {
                    syncParentDirectory();
                }
                // A log without data and without producers has no state worth a snapshot.
                if (corruption == null && (logEndOffset > segments.firstKey() || !producers.isEmpty())) {
                    producers.writeSnapshot(logEndOffset, true);
                    producers.retainNewest(3);
                    txnIndex.force();
                }
                durable = new LogPoint(logEndOffset, active.baseOffset, active.size());
                completeWaiters(logEndOffset);
            }
            closed = true;
            failWaiters(-1L, new IOException("log closed"));
            for (LogSegment s : segments.values()) {
                s.close();
            }
        } finally {
            lock.unlock();
            flushLock.unlock();
        }
    }

    /**
     * Closes without flushing anything (a simulated crash for tests, and log deletion). Takes the
     * flush lock so that a flush in progress finishes before the channels close.
     */
    void closeAbruptly() throws IOException {
        flushLock.lock();
        lock.lock();
        try {
            closed = true;
            failWaiters(-1L, new IOException("log closed"));
            for (LogSegment s : segments.values()) {
                s.close();
            }
        } finally {
            lock.unlock();
            flushLock.unlock();
        }
    }

    boolean isClosed() {
        return closed;
    }

    /** Closes the files and deletes the directory (for topic deletion). */
    void deleteFully() throws IOException {
        closeAbruptly();
        deleteRecursively(dir);
    }

    static void deleteRecursively(Path path) throws IOException {
        if (!Files.exists(path)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(path)) {
            for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    @Override
    public String toString() {
        return topic + "-" + partition;
    }
}
