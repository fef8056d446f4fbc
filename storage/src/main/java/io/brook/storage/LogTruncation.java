package io.brook.storage;

import io.brook.storage.file.DurableFiles;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Removing data from the end of a log ({@link Log#truncateTo}): every record at or above an
 * offset goes, a batch straddling it whole; producer state and the aborted transactions are
 * rebuilt as of the new end, and durability waiters above it fail. The durable offset follows the
 * end down, and before {@code truncateTo} returns the {@link Listener} (the log manager) writes it
 * to the recovery-point checkpoint, as Kafka's {@code LogManager.truncateTo} does: a checkpoint
 * left above the new end would let the next unclean start take records appended after the
 * truncation, not yet forced, for durable ones, and their torn tail for corruption of acknowledged
 * data.
 *
 * <p>Threading: holds the log's state-file lock, flush lock and append lock (in that order), so
 * no flush, state-file write or append interleaves with it. Removed segments are renamed under
 * the append lock, because a roll may reuse their base offset as soon as it is released (with
 * the flush lock held, marking them deleted waits for no force); the renames are made durable
 * and the state files written after the append lock is released.
 */
final class LogTruncation {

    /** Told after a truncation lowered a log's durable offset, before {@code truncateTo} returns. */
    @FunctionalInterface
    interface Listener {
        void truncated(Log log) throws IOException;
    }

    private LogTruncation() {
    }

    static void truncateTo(Log log, long offset) throws IOException {
        log.stateFiles.writeLock.lock();
        try {
            List<LogSegment> removed = cut(log, offset);
            if (removed != null) {
                if (removed.isEmpty()) {
                    DurableFiles.fsyncDirectory(log.dir());
                }
                log.deleteRetired(removed);
                log.stateFiles.persist();
                Listener l = log.truncationListener();
                if (l != null) {
                    l.truncated(log);
                }
            }
        } finally {
            log.stateFiles.writeLock.unlock();
        }
    }

    /**
     * {@link Log#truncateFullyAndStartAt}: every segment goes and an empty one starts the log at
     * {@code offset}, which becomes the log start and end; producer state, the aborted
     * transactions and every producer snapshot go too (an old snapshot at the new start would be
     * read at the next load), and durability waiters fail. Durable before it returns, in an order
     * that no crash can turn into the old log's data above the new start: the old segments are
     * renamed and the new one created under the locks; then the aborted-transaction file is
     * removed and the snapshot files deleted; then the log start offset is written (its atomic
     * write fsyncs the directory, making the renames and the new segment durable) and the
     * directory fsynced once more; then the listener checkpoints the recovery point at
     * {@code offset}. An I/O error under the locks takes the log offline.
     */
    static void truncateFullyAndStartAt(Log log, long offset) throws IOException {
        if (offset < 0) {
            throw new IllegalArgumentException("offset " + offset);
        }
        log.stateFiles.writeLock.lock();
        try {
            List<LogSegment> removed = restart(log, offset);
            log.txnIndex.persist();
            log.producers.deleteSnapshotsAbove(Long.MIN_VALUE);
            log.stateFiles.persist();
            log.deleteRetired(removed);
            Listener l = log.truncationListener();
            if (l != null) {
                l.truncated(log);
            }
        } finally {
            log.stateFiles.writeLock.unlock();
        }
    }

    /** Under the state-file lock: the in-memory part and the renames of a full truncation; returns the old segments. */
    private static List<LogSegment> restart(Log log, long offset) throws IOException {
        log.durability.flushLock.lock();
        log.appendLock.lock();
        try {
            if (log.closing) {
                throw new IOException("the log of " + log + " is closed");
            }
            List<LogSegment> removed = new ArrayList<>(log.segments.values());
            LogSegment fresh;
            try {
                // The one whose name the new segment takes goes first; the map changes only
                // once every file operation succeeded (a failure leaves it whole, offline).
                LogSegment same = log.segments.get(offset);
                if (same != null) {
                    same.retire();
                }
                fresh = LogSegment.create(log.dir(), offset, log.config(), log.clock.millis());
                fresh.prepareForAppend();
                for (LogSegment seg : removed) {
                    if (seg != same) {
                        seg.retire();
                    }
                }
            } catch (IOException e) {
                log.durability.fail(e);
                throw e;
            }
            // Readers always find a segment: the new one is in before the old ones leave.
            log.segments.put(offset, fresh);
            for (LogSegment seg : removed) {
                log.segments.remove(seg.baseOffset, seg);
            }
            log.active = fresh;
            log.logEndOffset = offset;
            log.logStartOffset = offset;
            log.stateFiles.logStartOffsetChanged(offset);
            LogPoint end = LogPoint.endOf(fresh, offset);
            log.appended = end;
            log.visibleBeforeFlushOnAck = null;
            log.corruption = null;
            log.durability.restarted(end);
            log.producers.clear();
            log.txnIndex.truncateTo(Long.MIN_VALUE);
            log.firstUnstableOffset = -1L;
            log.stateFiles.discardSnapshotsAbove(Long.MIN_VALUE);
            log.durability.failWaiters(-1L, new IOException("log of " + log + " restarted at " + offset));
            return removed;
        } finally {
            log.appendLock.unlock();
            log.durability.flushLock.unlock();
        }
    }

    /** Under the state-file lock: the in-memory part; returns the removed segments, or null if nothing changed. */
    private static List<LogSegment> cut(Log log, long offset) throws IOException {
        log.durability.flushLock.lock();
        log.appendLock.lock();
        try {
            if (offset >= log.logEndOffset) {
                return null;
            }
            if (offset < log.segments.firstKey()) {
                offset = log.segments.firstKey();
            }
            // The index files of the segment that will end the log may name batches about to go,
            // and an unclean start may begin its scan at one of their entries (see LogLoader):
            // they go first (before anything changes, should that fail) until the segment's
            // indexes are written next. Made durable by the directory fsync after the cut.
            log.segments.floorEntry(offset).getValue().deleteIndexFiles();
            List<LogSegment> removed = new ArrayList<>(log.segments.tailMap(offset, false).values());
            for (LogSegment seg : removed) {
                log.segments.remove(seg.baseOffset, seg);
                seg.retire();
            }
            LogSegment last = log.segments.lastEntry().getValue();
            last.truncateTo(offset);
            last.prepareForAppend();
            log.active = last;
            long end = last.nextOffset();
            log.logEndOffset = end;
            LogPoint endPoint = LogPoint.endOf(last, end);
            log.appended = endPoint;
            if (log.logStartOffset > end) {
                log.logStartOffset = end;
                log.stateFiles.logStartOffsetChanged(end);
            }
            log.durability.truncated(endPoint);
            LogPoint seen = log.visibleBeforeFlushOnAck;
            if (seen != null && seen.offset() > end) {
                log.visibleBeforeFlushOnAck = endPoint;
            }
            if (log.corruption != null && end <= log.corruption.offset()) {
                // The corrupt bytes lay above the new end and were cut off with it.
                log.corruption = null;
            }
            log.stateFiles.discardSnapshotsAbove(end);
            log.firstUnstableOffset = LogLoader.rebuildProducerState(log, log.logStartOffset, end, false);
            log.durability.failWaiters(end, new IOException("log truncated to " + end));
            return removed;
        } finally {
            log.appendLock.unlock();
            log.durability.flushLock.unlock();
        }
    }
}
