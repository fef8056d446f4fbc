package io.brook.storage;

import io.brook.wire.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The append path of one log: the checks of {@link AppendValidator}, the producer-state checks
 * (duplicates, epochs, sequences), the roll decision, the write into the active segment and the
 * publication of the new log end.
 *
 * <p>Threading: {@link #append} runs on the producing thread (a Netty event loop runs Produce
 * inline) and holds the log's append lock from the producer-state check to the publication of
 * the new end. It never waits for a disk there: the write goes to the page cache, forces are the
 * flusher's ({@link DurabilityTracker}) and the producer snapshot a roll takes is written on the
 * scheduler's thread ({@link LogStateFiles#persistSnapshotsLater}).
 */
final class LogAppender {
    private static final Logger LOG = LoggerFactory.getLogger(LogAppender.class);

    private final Log log;
    private final AppendValidator validator;
    private final ProducerStateManager.Check check = new ProducerStateManager.Check();
    /** Whether the last append was refused for want of space (logged once per episode). Under the append lock. */
    private boolean outOfSpace;

    LogAppender(Log log) {
        this.log = log;
        this.validator = new AppendValidator(log.toString());
    }

    /**
     * See {@link Log#append}, {@link Log#appendAsCoordinator} ({@code coordinator}) and {@link
     * Log#appendMarker} ({@code bumpedMarker}).
     */
    AppendResult append(ByteBuffer batch, int leaderEpoch, boolean coordinator, boolean bumpedMarker) {
        LogConfig cfg = log.config();
        AppendResult invalid = validator.validate(batch, cfg, log.clock, log.logStartOffset);
        if (invalid != null) {
            return invalid;
        }
        int p = batch.position();
        int bytes = batch.remaining();
        AppendResult result;
        boolean requestFlush;
        boolean rolled;
        log.appendLock.lock();
        try {
            if (log.closing || log.durability.failure() != null || log.corruption != null) {
                return AppendResult.error(Errors.KAFKA_STORAGE_ERROR, log.storageProblem(), log.logStartOffset);
            }
            ProducerStateManager producers = log.producers;
            producers.check(batch, p, coordinator, bumpedMarker, check);
            if (check.error != Errors.NONE) {
                return AppendResult.error(check.error, check.message, log.logStartOffset);
            }
            if (check.duplicate) {
                return new AppendResult(Errors.NONE, null, check.duplicateFirstOffset, check.duplicateLastOffset,
                        cfg.logAppendTime() ? check.duplicateTimestamp : -1L, log.logStartOffset, true);
            }
            long now = log.clock.millis();
            long base = log.logEndOffset;
            long last = base + BatchHeader.lastOffsetDelta(batch, p);
            long maxTs = cfg.logAppendTime() ? now : BatchHeader.maxTimestamp(batch, p);
            try {
                rolled = maybeRoll(cfg, bytes, base, last, maxTs, now);
            } catch (IOException e) {
                return refuse(null, e, "roll failed");
            }
            ByteBuffer[] srcs = validator.assign(batch, p, bytes, base, leaderEpoch, cfg.logAppendTime(), now);
            LogSegment active = log.active;
            try {
                active.append(srcs, bytes, base, last, maxTs);
                if (log.wantsPreallocation(cfg)) {
                    log.preallocator.maybeExtend(active, cfg.segmentBytes());
                }
            } catch (IOException e) {
                return refuse(active, e, "write failed");
            } finally {
                batch.position(p);
            }
            if (outOfSpace) {
                outOfSpace = false;
                LOG.info("{}: space is free again, appends resume", log);
            }
            if (BatchHeader.isControl(batch, p)) {
                try {
                    log.txnIndex.addIfAbort(producers.entry(BatchHeader.producerId(batch, p)), batch, p, base);
                } catch (IOException e) {
                    // Not a reason to stop the log: the entry is in memory, the file is rewritten
                    // before a producer snapshot relies on it, and a start rebuilds it from the
                    // marker (see docs/storage-faults.md).
                    LOG.warn("{}: could not append an aborted transaction to its file; it is kept in memory and"
                            + " the file is rewritten with it before the next producer snapshot", log, e);
                }
            }
            boolean copiedHeader = srcs.length > 1;
            producers.update(copiedHeader ? srcs[0] : batch, copiedHeader ? 0 : p, base, last);
            log.firstUnstableOffset = producers.firstUnstableOffset();
            log.logEndOffset = last + 1;
            log.appended = LogPoint.endOf(active, last + 1);
            requestFlush = log.durability.appended(last - base + 1, cfg);
            result = new AppendResult(Errors.NONE, null, base, last, cfg.logAppendTime() ? now : -1L,
                    log.logStartOffset, false);
        } finally {
            log.appendLock.unlock();
        }
        if (requestFlush) {
            log.durability.requestFlush();
        }
        HighWatermarkListener l = log.highWatermarkListener();
        if (l != null && !cfg.flushOnAck()) {
            l.highWatermarkAdvanced(log, result.lastOffset() + 1);
        }
        if (rolled) {
            log.stateFiles.persistSnapshotsLater();
        }
        return result;
    }

    /**
     * Under the append lock: the answer to an append whose roll or write failed; nothing of it
     * was appended. A full disk refuses this append and keeps the log online: the bytes a short
     * write left past the data are cut off and the next append tries again (the roll too), so
     * appends resume by themselves once space is free, and reads never stop. Any other I/O error
     * takes the log offline ({@link DurabilityTracker#fail}).
     *
     * @param seg the segment written to, null when the roll failed (it wrote nothing)
     */
    private AppendResult refuse(LogSegment seg, IOException e, String what) {
        if (OutOfSpace.is(e)) {
            try {
                if (seg != null) {
                    seg.discardFailedAppend();
                }
                if (!outOfSpace) {
                    outOfSpace = true;
                    LOG.warn("{}: {}, no space left on device: appends are refused with KAFKA_STORAGE_ERROR until"
                            + " space is free; reads go on", log, what, e);
                }
                return AppendResult.error(Errors.KAFKA_STORAGE_ERROR, what + ": " + e.getMessage(), log.logStartOffset);
            } catch (IOException cut) {
                cut.addSuppressed(e);
                e = cut;
            }
        }
        log.durability.fail(e);
        return AppendResult.error(Errors.KAFKA_STORAGE_ERROR, what + ": " + e.getMessage(), log.logStartOffset);
    }

    /**
     * Rolls before an append that would not fit the active segment, or when the active segment
     * is older than {@link LogConfig#maxSegmentMs}; returns whether it rolled. A failed roll
     * throws: the append must not go into a segment that is full (its offsets or positions could
     * overflow).
     */
    private boolean maybeRoll(LogConfig cfg, int bytes, long base, long last, long maxTs, long now)
            throws IOException {
        LogSegment seg = log.active;
        if (seg.isEmpty()) {
            return false;
        }
        long rollTs = seg.rollingTimestamp();
        long rollMs = cfg.maxSegmentMs();
        boolean byTime = (maxTs >= 0 && rollTs >= 0 ? maxTs - rollTs : now - rollTs)
                > rollMs - Math.min(cfg.segmentJitterMs(), rollMs - 1);
        if ((long) seg.size() + bytes > cfg.segmentBytes() || byTime || seg.indexesFull()
                || last - seg.baseOffset > Integer.MAX_VALUE) {
            roll(base, now);
            return true;
        }
        return false;
    }

    /**
     * Under the append lock: makes a new active segment starting at {@code base}. The producer
     * state is serialised here and written by {@link LogStateFiles} once the lock is released.
     */
    void roll(long base, long now) throws IOException {
        LogSegment old = log.active;
        // Zeros first (freeing their space); a failure leaves the old segment active and whole.
        old.trimPreallocation();
        LogSegment seg = LogSegment.create(log.dir(), base, log.config(), now);
        old.onBecomeInactive();
        log.durability.rolled(old);
        log.segments.put(base, seg);
        log.active = seg;
        log.stateFiles.snapshotTaken(base, log.producers.snapshot());
    }
}
