package io.brook.storage;

import io.brook.wire.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Removing data from the start of a log: retention by time and size, DeleteRecords, and moving
 * the log start offset together with what depends on it (producer state, the aborted
 * transactions, the {@code log-start-offset} file). Only data below the high watermark goes.
 *
 * <p>Threading: retention runs on the scheduler thread, DeleteRecords on a request thread. Both
 * remove segments under the log's maintenance lock (DeleteRecords only tries it, so a request
 * never waits for a compaction pass; the next pass removes what it left) and hold the append
 * lock only to change the segment map and the offsets. The removed segments are marked deleted
 * and renamed, the directory fsynced and the log start offset written after the append lock is
 * released.
 */
final class LogRetention {
    private static final Logger LOG = LoggerFactory.getLogger(LogRetention.class);

    private final Log log;

    LogRetention(Log log) {
        this.log = log;
    }

    /** See {@link Log#deleteRecordsBefore}. */
    Errors deleteRecordsBefore(long offset) {
        long hw = log.highWatermark();
        long target = offset == -1L ? hw : offset;
        if (target < 0 || target > hw) {
            return Errors.OFFSET_OUT_OF_RANGE;
        }
        log.appendLock.lock();
        try {
            if (target > log.logStartOffset) {
                advanceLogStartOffset(target);
            }
        } finally {
            log.appendLock.unlock();
        }
        try {
            log.stateFiles.persist();
        } catch (IOException e) {
            if (OutOfSpace.is(e)) {
                // Not durable yet, so not acknowledged; the log stays online and the next write
                // of its state files (another DeleteRecords, a retention pass) writes it.
                LOG.warn("{}: could not write the log start offset {}: {}", log, target, e.getMessage());
            } else {
                log.durability.fail(e);
            }
            return Errors.KAFKA_STORAGE_ERROR;
        }
        // Whole segments below the new start go now unless compaction or retention is busy with
        // this log (then their next pass removes them): a request thread never waits for them.
        if (log.maintenanceLock.tryLock()) {
            try {
                deleteSegments(s -> s.nextOffset() <= log.logStartOffset, false);
            } finally {
                log.maintenanceLock.unlock();
            }
        }
        return Errors.NONE;
    }

    /** Under the append lock: moves the log start offset up to {@code offset} (persisted later). */
    private void advanceLogStartOffset(long offset) {
        log.logStartOffset = offset;
        log.stateFiles.logStartOffsetChanged(offset);
        log.txnIndex.dropBefore(offset);
        log.producers.onLogStartOffsetIncremented(offset);
        log.firstUnstableOffset = log.producers.firstUnstableOffset();
    }

    /**
     * Retention: deletes the oldest segments while they are older than {@code retention.ms} (by
     * their largest timestamp) or the log is over {@code retention.bytes}, or they lie wholly
     * below the log start offset; only data below the high watermark goes. If every segment
     * qualifies, the active one is rolled first so that the log keeps a segment. Runs on the
     * background thread, never on the append path. Returns the number deleted.
     */
    int deleteExpiredSegments(long nowMs) {
        LogConfig cfg = log.config();
        int n = deleteSegments(s -> s.nextOffset() <= log.logStartOffset, false);
        if (!cfg.delete()) {
            return n;
        }
        if (cfg.retentionMs() >= 0) {
            n += deleteSegments(s -> nowMs - retentionTimestamp(s) > cfg.retentionMs(), true);
        }
        if (cfg.retentionBytes() >= 0) {
            long[] excess = {log.sizeInBytes() - cfg.retentionBytes()};
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

    private int deleteSegments(Predicate<LogSegment> shouldDelete, boolean mayRollActive) {
        log.maintenanceLock.lock();
        try {
            List<LogSegment> removed = new ArrayList<>();
            IOException rollFailure = null;
            boolean more = true;
            while (more) {
                log.appendLock.lock();
                try {
                    more = removeFirst(shouldDelete, mayRollActive, removed);
                } catch (IOException e) {
                    // the roll of the active segment failed: what was taken out so far still goes
                    rollFailure = e;
                    more = false;
                } finally {
                    log.appendLock.unlock();
                }
            }
            for (LogSegment seg : removed) {
                seg.retire();
            }
            log.deleteRetired(removed);
            log.stateFiles.persist();
            if (rollFailure != null) {
                throw rollFailure;
            }
            return removed.size();
        } catch (IOException e) {
            if (OutOfSpace.is(e)) {
                // Retention is what frees space: a full disk must not stop it for good. The
                // next pass rolls again and writes the state files it could not write now.
                LOG.warn("{}: retention could not finish, no space left on device: {}", log, e.getMessage());
            } else {
                log.durability.fail(e);
            }
            return 0;
        } finally {
            log.maintenanceLock.unlock();
        }
    }

    /**
     * Under the append lock: takes the first segment out of the map (with an empty one before
     * it) if it qualifies; returns whether it did.
     */
    private boolean removeFirst(Predicate<LogSegment> shouldDelete, boolean mayRollActive, List<LogSegment> removed)
            throws IOException {
        if (log.closing) {
            return false;
        }
        LogSegment first = log.segments.firstEntry().getValue();
        long hw = log.highWatermark();
        // Compaction can empty a closed segment. It goes together with the segment after it,
        // never alone: deleting it alone would move the log start past offsets that consumers
        // of a compacted topic may still hold.
        LogSegment emptyBefore = null;
        if (first.isEmpty() && first != log.active) {
            emptyBefore = first;
            first = log.segments.higherEntry(first.baseOffset).getValue();
        }
        if (first.isEmpty() || first.nextOffset() > hw || !shouldDelete.test(first)) {
            return false;
        }
        if (first == log.active) {
            if (!mayRollActive) {
                return false;
            }
            log.roll(log.logEndOffset, log.clock.millis());
        }
        if (emptyBefore != null) {
            log.segments.remove(emptyBefore.baseOffset, emptyBefore);
            removed.add(emptyBefore);
        }
        log.segments.remove(first.baseOffset, first);
        removed.add(first);
        long next = log.segments.firstKey();
        if (next > log.logStartOffset) {
            advanceLogStartOffset(next);
        }
        LOG.info("{}: deleted segment {} by retention", log, first.baseOffset);
        return true;
    }
}
