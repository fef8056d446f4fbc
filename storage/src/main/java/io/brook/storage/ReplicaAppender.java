package io.brook.storage;

import io.brook.wire.protocol.Errors;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The append path of a follower ({@link Log#appendReplicated}): whole batches copied from the
 * leader's log (the records of a Fetch response) written as they are, as Kafka's
 * {@code appendAsFollower} does. Nothing in a batch is reassigned: base offsets, leader epochs,
 * timestamps and producer ids, epochs and sequences stay the leader's.
 *
 * <p>Before the append lock every whole batch is checked: its framing, CRC, that its offsets are
 * sane and above those of the batch before it (gaps are allowed: a compacted log has them), and
 * the framing of its records, within the decompression bound of a client's batch (a follower
 * trusts its leader's bytes no more than a client's). A trailing partial batch, which a fetch
 * may cut, is left alone. Any failure refuses the whole chunk with CORRUPT_MESSAGE before
 * anything is written. {@code max.message.bytes} is not applied: the leader accepted the
 * batches.
 *
 * <p>Under the append lock the first batch must start at or above the log end (else
 * OFFSET_OUT_OF_RANGE: the caller truncates first), then each batch goes through what an
 * append does ({@link LogAppender#write} and {@link LogAppender#published}): the roll (at the
 * batch's base offset), the write, the indexes, preallocation, the aborted-transaction index,
 * the producer state and the durability accounting, so that {@link Log#whenDurable} works and a
 * new leader carries on with the producers' sequences and open transactions. The producer state
 * is updated but not checked (the leader did the checks), and the leader-epoch fence does not
 * apply. A write refused for want of space stops the chunk there; the batches before it stay.
 *
 * <p>Threading: one caller at a time per log is expected (the fetcher of the partition), but
 * any interleaving with other appends is safe: the offset check and the writes happen under the
 * append lock.
 */
final class ReplicaAppender {
    private final Log log;
    private final LogAppender appender;
    /** The one source of a write. Under the append lock. */
    private final ByteBuffer[] source = new ByteBuffer[1];

    ReplicaAppender(Log log, LogAppender appender) {
        this.log = log;
        this.appender = appender;
    }

    /** See {@link Log#appendReplicated}. */
    ReplicaAppendResult append(ByteBuffer buffer) {
        // Batches are big-endian; a view in that order leaves the caller's buffer as it was.
        ByteBuffer records = buffer.order() == ByteOrder.BIG_ENDIAN ? buffer : buffer.duplicate();
        int start = records.position();
        int end = records.limit();
        // Before the lock: find and check the whole batches.
        int p = start;
        int count = 0;
        long previousLast = -1L;
        RecordChecks checks = RecordChecks.forThisThread();
        while (end - p >= BatchHeader.HEADER_SIZE) {
            int length = BatchHeader.batchLength(records, p);
            if (length < BatchHeader.MIN_BATCH_LENGTH) {
                return corrupt(p - start, "batch length " + length + " below the minimum");
            }
            long size = (long) BatchHeader.LOG_OVERHEAD + length;
            if (size > end - p) {
                break;
            }
            String problem = BatchHeader.checkStored(records, p, (int) size);
            if (problem == null) {
                problem = checkOffsets(records, p, previousLast);
            }
            if (problem == null) {
                problem = checks.checkFraming(records, p);
            }
            if (problem != null) {
                return corrupt(p - start, problem);
            }
            previousLast = BatchHeader.lastOffset(records, p);
            count++;
            p += (int) size;
        }
        if (count == 0) {
            return ReplicaAppendResult.nothing();
        }
        return write(records, start, count);
    }

    /** Null if the offsets of the batch at {@code p} are sane and above {@code previousLast}. */
    private static String checkOffsets(ByteBuffer b, int p, long previousLast) {
        long base = BatchHeader.baseOffset(b, p);
        if (base < 0 || base > Long.MAX_VALUE - 1 - BatchHeader.lastOffsetDelta(b, p)) {
            return "base offset " + base + " out of range";
        }
        if (base <= previousLast) {
            return "base offset " + base + " not above the last offset " + previousLast + " of the batch before";
        }
        return null;
    }

    private ReplicaAppendResult corrupt(int at, String problem) {
        return ReplicaAppendResult.error(Errors.CORRUPT_MESSAGE, "replicated batch at byte " + at + " for " + log
                + ": " + problem + "; nothing appended");
    }

    /** Writes the {@code count} checked batches from {@code start}. */
    private ReplicaAppendResult write(ByteBuffer records, int start, int count) {
        LogConfig cfg = log.config();
        ByteBuffer view = records.duplicate();
        long first = -1L;
        long last = -1L;
        int p = start;
        Errors error = Errors.NONE;
        String message = null;
        int requestFlush = DurabilityTracker.NO_FLUSH;
        boolean rolled;
        log.appendLock.lock();
        try {
            if (log.closing || log.durability.failure() != null || log.corruption != null) {
                return ReplicaAppendResult.error(Errors.KAFKA_STORAGE_ERROR, log.storageProblem());
            }
            long firstBase = BatchHeader.baseOffset(records, start);
            if (firstBase < log.logEndOffset) {
                return ReplicaAppendResult.error(Errors.OFFSET_OUT_OF_RANGE, "replicated batch at offset " + firstBase
                        + " below the log end " + log.logEndOffset + " of " + log + ": truncate first");
            }
            long now = log.clock.millis();
            try {
                for (int i = 0; i < count; i++) {
                    int size = BatchHeader.sizeInBytes(records, p);
                    long base = BatchHeader.baseOffset(records, p);
                    long batchLast = BatchHeader.lastOffset(records, p);
                    view.limit(p + size).position(p);
                    source[0] = view;
                    AppendResult refused = appender.write(cfg, source, size, base, batchLast,
                            BatchHeader.maxTimestamp(records, p), now);
                    if (refused != null) {
                        error = refused.error();
                        message = refused.errorMessage();
                        break;
                    }
                    requestFlush = Math.max(requestFlush,
                            appender.published(cfg, records, p, records, p, base, batchLast));
                    if (first < 0) {
                        first = base;
                    }
                    last = batchLast;
                    p += size;
                }
            } finally {
                source[0] = null;
                rolled = appender.takeRolled();
            }
        } finally {
            log.appendLock.unlock();
        }
        if (last >= 0) {
            appender.afterUnlock(cfg, requestFlush, rolled, last + 1);
        } else if (rolled) {
            log.stateFiles.persistSnapshotsLater();
        }
        return new ReplicaAppendResult(error, message, first, last, p - start);
    }
}
