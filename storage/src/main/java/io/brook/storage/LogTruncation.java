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
