package io.brook.storage;

import io.brook.storage.file.DurableFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * What of one log is durable and who waits for it: the durable point, the durability waiters,
 * the flush that the {@link Flusher} threads run for the log, and the I/O failure that takes the
 * log offline.
 *
 * <h2>Flush</h2>
 * A flush captures the log end under the append lock (for a moment), then without it forces the
 * segments rolled since the last flush (and writes their indexes), the active segment and, once,
 * the new log directory's entry in the data directory; then it publishes the captured end as
 * the durable point, tells the high-watermark listener and completes the waiters it covers.
 * Appends go on meanwhile and are covered by the next flush. A segment removed by retention,
 * truncation or compaction is never forced again (its data has left the log).
 *
 * <h2>Requests</h2>
 * An append with fsync-on-ack asks the {@link Flusher} for a <em>lazy</em> flush: nobody waits
 * for it but the high watermark, so under load the flusher may delay it by up to
 * {@code brook.log.flush.coalesce.ms} after the log's last force (if appends overtook that force),
 * or {@code brook.log.flush.coalesce.unread.ms} while no read is at the log's end
 * ({@link #readerAtEnd}), and cover the appends of that time with one force. A durability
 * waiter ({@link #whenDurable}), {@code flush.messages}, {@code flush.ms} and switching
 * fsync-on-ack back on ask for an <em>urgent</em> one, which is
 * queued at once and ends a delay in progress. The flusher's state of the log (idle, delayed,
 * queued, being flushed, being flushed with more to do) is {@link #flushState}; its diagram is
 * in {@link Flusher}'s comment.
 *
 * <h2>Failure</h2>
 * An I/O error in a flush (including an unchecked exception or an {@link Error} thrown on its
 * path), and those of the other paths listed in {@link Log}'s comment, take this log offline for
 * good: every pending waiter completes exceptionally with the {@link IOException} (the server
 * answers KAFKA_STORAGE_ERROR), so does every later one, and appends and reads are refused. A
 * failed fsync is never retried: after one, the kernel may have dropped the dirty pages it could
 * not write and marked them clean, so a later fsync that succeeds proves nothing about them.
 * Only this log goes offline, not its data directory (Kafka takes the directory): every other
 * log calls its data durable only after its own force succeeded, so none of them acknowledges
 * anything it could lose, and a failing disk takes each log offline as soon as that log meets
 * an error. The durable point stays where the last successful force left it; a later clean
 * close writes no clean-shutdown marker, so the next start scans what was written after it.
 * Waiters registered on a closed log fail at once instead of waiting for a flush that will
 * never come. A full disk on the append path is not a failure (see {@link LogAppender}).
 *
 * <p>Threading: {@link #flush} runs on a flusher thread (or at close) under {@link #flushLock},
 * which truncation, close and segment swaps also take, so a flush never interleaves with them;
 * the flush lock is taken before the append lock. Waiters are guarded by their queue's monitor;
 * completions run outside it, on the flushing thread.
 */
final class DurabilityTracker {
    private static final Logger LOG = LoggerFactory.getLogger(DurabilityTracker.class);
    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);
    /** {@link #appended}: no flush to ask for. */
    static final int NO_FLUSH = 0;
    /** {@link #appended}: a flush nobody waits for yet (it may be delayed). */
    static final int LAZY_FLUSH = 1;
    /** {@link #appended}: a flush due now ({@code flush.messages} reached). */
    static final int URGENT_FLUSH = 2;

    private final Log log;
    /** The group-commit threads, or null to flush only by {@link #flush()}. */
    private final Flusher flusher;
    /** Serialises flushes with truncation, close and segment swaps; taken before the append lock. */
    final ReentrantLock flushLock = new ReentrantLock();
    /** The flusher's state of this log: idle, delayed, queued, being flushed, or being flushed with more to do. */
    final AtomicInteger flushState = new AtomicInteger();
    private final Queue<LogSegment> rolledUnflushed = new ConcurrentLinkedQueue<>();
    private final PriorityQueue<Waiter> waiters = new PriorityQueue<>();
    private volatile LogPoint durable;
    private volatile IOException failure;
    /** Set (under the waiters' monitor) when failing starts, before {@link #failure} is published. */
    private boolean failing;
    /** Messages appended since the last flush began. Under the append lock. */
    private long unflushedMessages;
    private volatile long flushCount;
    /**
     * Moving average (weight 1/8) of the bytes each force of the active segment made durable:
     * preallocation pays off only while forces are small. Written by the flushing thread.
     */
    private volatile int bytesPerFlush;
    private volatile long lastFlushMs;
    /**
     * Whether this log's directory was created by {@link Log#open} and its entry in the data
     * directory has not been fsynced yet: done by the first flush that makes data durable.
     */
    volatile boolean parentDirectoryDirty;
    /** {@link #readAtEndNanos}: no read found this log's end yet. */
    static final long NEVER = Long.MIN_VALUE;
    /** When a read last found nothing new at the high watermark (flusher's clock), or {@link #NEVER}. */
    volatile long readAtEndNanos = NEVER;
    /** The short due time of the flusher's current delay of this log (see {@link Flusher#readerAtEnd}). */
    volatile long delayDueNanos;
    /** Test seam: runs on the flushing thread just before a segment is forced. */
    volatile Consumer<LogSegment> beforeSegmentFlush;

    private record Waiter(long nextOffset, CompletableFuture<Void> future) implements Comparable<Waiter> {
        @Override
        public int compareTo(Waiter o) {
            return Long.compare(nextOffset, o.nextOffset);
        }
    }

    DurabilityTracker(Log log, Flusher flusher) {
        this.log = log;
        this.flusher = flusher;
    }

    /** At open: everything on disk counts as durable (the loader forced what it scanned). */
    void opened(LogPoint end, long nowMs, boolean newDirectory) {
        durable = end;
        lastFlushMs = nowMs;
        parentDirectoryDirty = newDirectory;
    }

    LogPoint durable() {
        return durable;
    }

    /** Null while healthy, else the I/O error that took this log offline. */
    IOException failure() {
        return failure;
    }

    /**
     * Under the append lock: {@code messages} were appended; returns which flush to ask for
     * ({@link #NO_FLUSH}, {@link #LAZY_FLUSH} or {@link #URGENT_FLUSH}; the larger of two covers both).
     */
    int appended(long messages, LogConfig cfg) {
        unflushedMessages += messages;
        if (unflushedMessages >= cfg.flushMessages()) {
            return URGENT_FLUSH;
        }
        return cfg.flushOnAck() ? LAZY_FLUSH : NO_FLUSH;
    }

    /** Under the append lock: {@code seg} stopped being active; the next flush forces it. */
    void rolled(LogSegment seg) {
        rolledUnflushed.add(seg);
    }

    /** Whether this log's forces are small enough on average for preallocation to pay off. */
    boolean forcesAreSmall() {
        return bytesPerFlush < Preallocator.WORTH_BELOW_BYTES_PER_FLUSH;
    }

    /** Asks for an urgent flush: queued at once (see the class comment). */
    void requestFlush() {
        requestFlush(true);
    }

    /**
     * Asks for a flush: {@code urgent}, or lazy (perhaps delayed, see the class comment); held
     * until the thread's round is over when it defers its requests ({@link FlushRequestHold}).
     */
    void requestFlush(boolean urgent) {
        if (flusher != null && !FlushRequestHold.held(log, urgent)) {
            askFlusher(urgent);
        }
    }

    /** {@link #requestFlush(boolean)} without the hold: the release of held requests. */
    void askFlusher(boolean urgent) {
        if (flusher != null) {
            flusher.request(log, urgent);
        }
    }

    /** A read found nothing new at the high watermark: tells the flusher (see {@link Flusher#readerAtEnd}). */
    void readerAtEnd() {
        if (flusher != null) {
            flusher.readerAtEnd(log);
        }
    }

    /** See {@link Log#whenDurable}. */
    CompletableFuture<Void> whenDurable(long nextOffset) {
        if (!log.config().flushOnAck() || durable.offset() >= nextOffset) {
            return DONE;
        }
        CompletableFuture<Void> f = new CompletableFuture<>();
        synchronized (waiters) {
            if (failure != null) {
                f.completeExceptionally(failure);
                return f;
            }
            if (log.isClosed()) {
                f.completeExceptionally(new IOException("the log of " + log + " is closed"));
                return f;
            }
            if (durable.offset() >= nextOffset) {
                return DONE;
            }
            waiters.add(new Waiter(nextOffset, f));
        }
        requestFlush();
        return f;
    }

    /**
     * Makes everything appended so far durable: forces the segments rolled since the last flush
     * (and writes their indexes), then the active one, then publishes the captured log end as the
     * durable offset and completes the waiters it covers. Runs on a flusher thread (or at close);
     * appenders keep appending meanwhile.
     */
    // flushCount and bytesPerFlush have one writer, the thread that holds the flush lock; volatile
    // only publishes them to readers, so the read-modify-write is not a race
    @SuppressWarnings("NonAtomicVolatileUpdate")
    void flush() {
        flushLock.lock();
        try {
            if (failure != null || log.isClosed()) {
                return;
            }
            long end;
            LogSegment act;
            int position;
            log.appendLock.lock();
            try {
                end = log.logEndOffset;
                act = log.active;
                position = act.size();
                unflushedMessages = 0;
            } finally {
                log.appendLock.unlock();
            }
            LogSegment s;
            while ((s = rolledUnflushed.peek()) != null) {
                if (log.segments.get(s.baseOffset) == s) {
                    runBeforeSegmentFlush(s);
                    s.flush();
                    flushIndexes(s);
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
            lastFlushMs = log.clock.millis();
            HighWatermarkListener l = log.highWatermarkListener();
            if (l != null && log.config().flushOnAck()) {
                try {
                    l.highWatermarkAdvanced(log, end);
                } catch (RuntimeException e) {
                    LOG.error("{}: high-watermark listener failed", log, e);
                }
            }
            completeWaiters(end);
        } catch (IOException e) {
            fail(e);
        } catch (RuntimeException | Error e) {
            // Whatever went wrong, nobody may wait for a durability that did not happen, and an
            // Error must not leave the log waiting for a flush that never comes.
            fail(e.getCause() instanceof IOException io ? io : new IOException("flush failed", e));
        } finally {
            flushLock.unlock();
        }
    }

    /**
     * Clean close, under the flush lock with appends stopped: forces every segment's data and
     * indexes (only what changed since its last flush) after cutting off preallocated zeros, and
     * the new log directory's entry if the log holds data.
     */
    void forceAll(boolean hasData) throws IOException {
        for (LogSegment s : log.segments.values()) {
            s.trimPreallocation();
            s.flush();
            s.flushIndexes();
        }
        if (hasData) {
            syncParentDirectory();
        }
    }

    /**
     * The entry of a newly created log directory in the data directory is fsynced once, before
     * the first data of the log is called durable (not at creation: creating many partitions
     * would otherwise cost one directory fsync each).
     */
    private void syncParentDirectory() throws IOException {
        if (parentDirectoryDirty) {
            DurableFiles.fsyncDirectory(log.dir().toAbsolutePath().getParent());
            parentDirectoryDirty = false;
        }
    }

    /**
     * Writes a rolled segment's index files. They are a cache of the data (a start-up that
     * finds them missing, short or unsound rebuilds them by scanning the segment), so a full disk
     * only leaves them for the clean close to write: it must not take the log offline.
     */
    private void flushIndexes(LogSegment s) throws IOException {
        try {
            s.flushIndexes();
        } catch (IOException e) {
            if (!OutOfSpace.is(e)) {
                throw e;
            }
            LOG.warn("{}: the index files of {} wait for space: {}", log, s, e.getMessage());
        }
    }

    private void runBeforeSegmentFlush(LogSegment s) {
        Consumer<LogSegment> hook = beforeSegmentFlush;
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
        if (log.logEndOffset > durable.offset() && nowMs - lastFlushMs >= log.config().flushMs()) {
            requestFlush();
        }
    }

    /** Publishes {@code end} as durable (everything up to it was forced) and completes the waiters it covers. */
    void markDurable(LogPoint end) {
        durable = end;
        completeWaiters(end.offset());
    }

    /** Under the flush and append locks (truncation): the log now ends at {@code end}; the durable point follows it down. */
    void truncated(LogPoint end) {
        if (durable.offset() > end.offset()) {
            durable = end;
        }
    }

    /** Under the flush and append locks (a full truncation): the log restarts empty at {@code end}, durable. */
    void restarted(LogPoint end) {
        durable = end;
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

    /** Fails the waiters for offsets above {@code above} (-1: all of them). */
    void failWaiters(long above, Throwable cause) {
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

    /**
     * Takes the log offline for good after an I/O error (see the class comment). An error met by
     * a log that was closed meanwhile (its topic deleted: its files were renamed away under a
     * DeleteRecords or a retention pass) says nothing about the disk and is only logged.
     */
    void fail(IOException e) {
        fail(e, true);
    }

    /** As {@link #fail(IOException)}; without {@code logIt} the caller has logged the cause once for many logs. */
    void fail(IOException e, boolean logIt) {
        synchronized (waiters) {
            if (failing) {
                return;
            }
            if (log.isClosed()) {
                LOG.info("{}: I/O error after the log was closed, ignored: {}", log, e.toString());
                return;
            }
            failing = true;
            failure = e;
        }
        if (logIt) {
            LOG.error("{}: I/O failure, the log goes offline: appends and reads answer KAFKA_STORAGE_ERROR"
                    + " until the broker restarts", log, e);
        }
        failWaiters(-1L, e);
    }
}
