package io.brook.storage;

import io.brook.storage.file.DurableFiles;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Installs the result of a compaction: replaces consecutive closed segments {@code olds} by the
 * one file {@code X.log.cleaned} the cleaner wrote and forced (X = the first one's base offset;
 * the file ends with a batch holding the group's last offset).
 *
 * <p>Steps: the cleaned file is opened and checked, building its indexes in memory, without a
 * lock. Then, holding the log's flush lock (so no truncation or close runs meanwhile; appends go
 * on, they never touch closed segments), it is renamed to {@code X.log.swap} and the directory
 * fsynced (the commit point), the old files are renamed to {@code .deleted}, the swap file to
 * {@code X.log} and the directory fsynced again, the segment map is updated under the append
 * lock, which is held for nothing else, and the new segment's index files are written. The old
 * segments are closed and deleted after {@code file.delete.delay.ms}. A crash
 * in between is completed or rolled back at the next start
 * ({@link LogLoader#completeInterruptedSwaps}).
 *
 * <p>Threading: the cleaner thread, holding the log's maintenance lock (so no retention runs
 * meanwhile). Lock order: the maintenance lock, the flush lock, the append lock.
 */
final class SegmentSwap {

    private SegmentSwap() {
    }

    /** Returns false (and deletes the cleaned file) if the segments changed meanwhile. */
    static boolean replace(Log log, List<LogSegment> olds, Path cleaned) throws IOException {
        LogSegment first = olds.get(0);
        LogSegment fresh = LogSegment.open(log.dir(), first.baseOffset, cleaned, log.config(), log.clock.millis());
        boolean installed = false;
        try {
            Corruption c = fresh.recover(null);
            if (c != null) {
                throw new IOException("cleaned segment is unsound: " + c);
            }
            log.durability.flushLock.lock();
            try {
                if (!stillInPlace(log, olds)) {
                    return false;
                }
                Path swap = LogSegment.file(log.dir(), first.baseOffset, LogSegment.LOG_SUFFIX + LogSegment.SWAP_SUFFIX);
                DurableFiles.moveAtomically(cleaned, swap);
                for (LogSegment old : olds) {
                    old.retire(); // no force of it runs: the flush lock is held
                }
                DurableFiles.moveAtomically(swap, first.logFile());
                log.appendLock.lock();
                try {
                    log.segments.put(first.baseOffset, fresh);
                    for (int i = 1; i < olds.size(); i++) {
                        log.segments.remove(olds.get(i).baseOffset, olds.get(i));
                    }
                } finally {
                    log.appendLock.unlock();
                }
                installed = true;
                // Under the flush lock, like every force of a segment: a truncation that takes
                // the new segment out again must not wait for this force under its append lock.
                fresh.flushIndexes();
            } finally {
                log.durability.flushLock.unlock();
            }
        } finally {
            if (!installed) {
                fresh.close();
                Files.deleteIfExists(cleaned);
            }
        }
        log.scheduleDeletion(olds);
        return true;
    }

    private static boolean stillInPlace(Log log, List<LogSegment> olds) {
        log.appendLock.lock();
        try {
            if (log.closing) {
                return false;
            }
            for (LogSegment old : olds) {
                if (log.segments.get(old.baseOffset) != old || old == log.active) {
                    return false;
                }
            }
            return true;
        } finally {
            log.appendLock.unlock();
        }
    }
}
