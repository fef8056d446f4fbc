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
 *
 * <p>The roll, the write and the publication are shared with {@link ReplicaAppender} (batches
 * copied from another node's log): {@link #write}, {@link #published} and {@link #afterUnlock}.
 * This class also holds the leader-epoch fence ({@link Log#fence}), which refuses the appends of
 * an older leader under the append lock.
 */
final class LogAppender {
    private static final Logger LOG = LoggerFactory.getLogger(LogAppender.class);

    private final Log log;
    private final AppendValidator validator;
    private final ProducerStateManager.Check check = new ProducerStateManager.Check();
    /** Whether the last append was refused for want of space (logged once per episode). Under the append lock. */
    private boolean outOfSpace;
    /** Whether a roll was last put off or refused for want of file descriptors (logged once per episode). Under the append lock. */
    private boolean outOfFiles;
    /** Whether {@link #write} rolled since {@link #takeRolled} was last called. Under the append lock. */
    private boolean rolled;
    /** The leader epoch below which appends are refused, -1 for none; written under the append lock. */
    private volatile int fencedEpoch = -1;
    /** The log end when {@link #fencedEpoch} was set. Under the append lock. */
    private long fencedEnd = -1L;

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
        int requestFlush;
        boolean rolledNow;
        log.appendLock.lock();
        try {
            if (log.closing || log.durability.failure() != null || log.corruption != null) {
                return AppendResult.error(Errors.KAFKA_STORAGE_ERROR, log.storageProblem(), log.logStartOffset);
            }
            if (leaderEpoch < fencedEpoch) {
                return AppendResult.error(Errors.NOT_LEADER_OR_FOLLOWER, "leader epoch " + leaderEpoch + " of "
                        + log + " was fenced by epoch " + fencedEpoch, log.logStartOffset);
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
            ByteBuffer[] srcs;
            try {
                srcs = validator.assign(batch, p, bytes, base, leaderEpoch, cfg.logAppendTime(), now);
                AppendResult refused = write(cfg, srcs, bytes, base, last, maxTs, now);
                if (refused != null) {
                    return refused;
                }
            } finally {
                batch.position(p);
                rolledNow = takeRolled();
            }
            boolean copiedHeader = srcs.length > 1;
            requestFlush = published(cfg, batch, p, copiedHeader ? srcs[0] : batch, copiedHeader ? 0 : p, base, last);
            result = new AppendResult(Errors.NONE, null, base, last, cfg.logAppendTime() ? now : -1L,
                    log.logStartOffset, false);
        } finally {
            log.appendLock.unlock();
        }
        afterUnlock(cfg, requestFlush, rolledNow, result.lastOffset() + 1);
        return result;
    }

    /**
     * Under the append lock: writes one batch whose offsets are final ({@code srcs}, {@code bytes}
     * long, offsets {@code base}..{@code last}) into the active segment, rolling first (at
     * {@code base}) when it would not fit. Returns null when written, else the refusal; nothing
     * was written then. A roll is remembered for {@link #takeRolled}.
     */
    AppendResult write(LogConfig cfg, ByteBuffer[] srcs, int bytes, long base, long last, long maxTs, long now) {
        try {
            if (maybeRoll(cfg, bytes, base, last, maxTs, now)) {
                rolled = true;
            }
        } catch (IOException e) {
            return refuse(null, e, "roll failed");
        }
        LogSegment active = log.active;
        try {
            active.append(srcs, bytes, base, last, maxTs);
            if (log.wantsPreallocation(cfg)) {
                log.preallocator.maybeExtend(active, cfg.segmentBytes());
            }
        } catch (IOException e) {
            return refuse(active, e, "write failed");
        }
        if (outOfSpace) {
            outOfSpace = false;
            LOG.info("{}: space is free again, appends resume", log);
        }
        return null;
    }

    /** Under the append lock: whether {@link #write} rolled since the last call (and forgets it). */
    boolean takeRolled() {
        boolean r = rolled;
        rolled = false;
        return r;
    }

    /**
     * Under the append lock, after {@link #write}: records an ABORT marker in the aborted
     * transactions and the batch in the producer state (its header read from {@code header} at
     * {@code hp}, the records from {@code batch} at {@code p}), and publishes {@code last + 1} as
     * the log end. Returns which flush to ask for (see {@link DurabilityTracker#appended}).
     */
    int published(LogConfig cfg, ByteBuffer batch, int p, ByteBuffer header, int hp, long base, long last) {
        ProducerStateManager producers = log.producers;
        int markerCoordinatorEpoch = -1;
        if (BatchHeader.isControl(batch, p)) {
            markerCoordinatorEpoch = ProducerStateManager.markerCoordinatorEpoch(batch, p);
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
        producers.update(header, hp, base, last, markerCoordinatorEpoch);
        log.firstUnstableOffset = producers.firstUnstableOffset();
        log.logEndOffset = last + 1;
        log.appended = LogPoint.endOf(log.active, last + 1);
        return log.durability.appended(last - base + 1, cfg);
    }

    /** After the append lock is released: the flush request, the listener and a roll's snapshot. */
    void afterUnlock(LogConfig cfg, int requestFlush, boolean rolledNow, long end) {
        if (requestFlush != DurabilityTracker.NO_FLUSH) {
            log.durability.requestFlush(requestFlush == DurabilityTracker.URGENT_FLUSH);
        }
        HighWatermarkListener l = log.highWatermarkListener();
        if (l != null && !cfg.flushOnAck()) {
            l.highWatermarkAdvanced(log, end);
        }
        if (rolledNow) {
            log.stateFiles.persistSnapshotsLater();
        }
    }

    /** See {@link Log#fence}. */
    long fence(int leaderEpoch) {
        if (leaderEpoch < 0) {
            throw new IllegalArgumentException("leader epoch " + leaderEpoch);
        }
        log.appendLock.lock();
        try {
            if (leaderEpoch > fencedEpoch) {
                fencedEpoch = leaderEpoch;
                fencedEnd = log.logEndOffset;
            }
            return fencedEnd;
        } finally {
            log.appendLock.unlock();
        }
    }

    /** See {@link Log#fencedEpoch}. */
    int fencedEpoch() {
        return fencedEpoch;
    }

    /**
     * Under the append lock: the answer to an append whose roll or write failed; nothing of it
     * was appended. A full disk refuses this append and keeps the log online: the bytes a short
     * write left past the data are cut off and the next append tries again (the roll too), so
     * appends resume by themselves once space is free, and reads never stop. A roll that finds no
     * file descriptor for its new segment (EMFILE, ENFILE) refuses the append the same way: the
     * active segment is untouched and the next append tries again. Any other I/O error
     * takes the log offline ({@link DurabilityTracker#fail}).
     *
     * @param seg the segment written to, null when the roll failed (it wrote nothing)
     */
    private AppendResult refuse(LogSegment seg, IOException e, String what) {
        if (seg == null && OutOfFiles.is(e)) {
            // a roll that could not open its new segment: the old one is still active and whole
            if (!outOfFiles) {
                outOfFiles = true;
                LOG.warn("{}: {}, no file descriptors left: appends that need a new segment are refused with"
                        + " KAFKA_STORAGE_ERROR until some are free; reads go on", log, what, e);
            }
            return AppendResult.error(Errors.KAFKA_STORAGE_ERROR, what + ": " + e.getMessage(), log.logStartOffset);
        }
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
     * is older than {@link LogConfig#maxSegmentMs}, or (even an empty one: a replicated batch
     * after a gap) when the batch's offsets lie too far above its base offset to be stored
     * relative to it; returns whether it rolled. While the process is short of file descriptors
     * ({@link FileDescriptors#scarce}) only the offsets' and positions' limits roll. A failed roll
     * throws: the append must not go into a segment that is full (its offsets or positions could
     * overflow).
     */
    private boolean maybeRoll(LogConfig cfg, int bytes, long base, long last, long maxTs, long now)
            throws IOException {
        LogSegment seg = log.active;
        boolean overflows = last - seg.baseOffset > Integer.MAX_VALUE;
        if (seg.isEmpty() && !overflows) {
            return false;
        }
        long rollTs = seg.rollingTimestamp();
        long rollMs = cfg.maxSegmentMs();
        boolean byTime = (maxTs >= 0 && rollTs >= 0 ? maxTs - rollTs : now - rollTs)
                > rollMs - Math.min(cfg.segmentJitterMs(), rollMs - 1);
        // the rolls that cannot wait: offsets too far above the base, or positions past 2 GiB
        boolean full = (long) seg.size() + bytes > Integer.MAX_VALUE;
        boolean wanted = (long) seg.size() + bytes > cfg.segmentBytes() || byTime || seg.indexesFull();
        if (overflows || full) {
            roll(base, now);
            return true;
        }
        if (!wanted) {
            return false;
        }
        if (log.files.scarce()) {
            if (!outOfFiles) {
                outOfFiles = true;
                LOG.warn("{}: the process is short of file descriptors: the active segment takes appends past its"
                        + " size, age and index limits (up to 2 GiB) instead of rolling until some are free", log);
            }
            return false;
        }
        roll(base, now);
        if (outOfFiles) {
            outOfFiles = false;
            LOG.info("{}: file descriptors are free again, segments roll", log);
        }
        return true;
    }

    /**
     * Under the append lock: makes a new active segment starting at {@code base}. The producer
     * state is serialised here and written by {@link LogStateFiles} once the lock is released.
     */
    void roll(long base, long now) throws IOException {
        LogSegment old = log.active;
        // Zeros first (freeing their space); a failure leaves the old segment active and whole.
        old.trimPreallocation();
        log.files.opening();
        LogSegment seg = LogSegment.create(log.dir(), base, log.config(), now);
        old.onBecomeInactive();
        log.durability.rolled(old);
        log.segments.put(base, seg);
        log.active = seg;
        log.stateFiles.snapshotTaken(base, log.producers.snapshot());
    }
}
