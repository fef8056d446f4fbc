package io.brook.storage;

import io.brook.wire.protocol.Errors;
import io.brook.wire.record.RecordBatch;
import io.brook.wire.record.RecordWalker;
import io.brook.wire.record.TimestampType;

import java.nio.ByteBuffer;

/**
 * The record-level checks of an append, as Kafka's log validator makes them on a batch from a
 * client, run while a {@link RecordWalker} checks each record's framing:
 * <ul>
 *   <li>framing, recordsCount against the records present, offset deltas 0, 1, 2, ... and
 *       lastOffsetDelta = recordsCount - 1 (the walker) → INVALID_RECORD; a compressed section
 *       that does not decompress → CORRUPT_MESSAGE, one that decompresses to more than
 *       {@link RecordBatch#DEFAULT_MAX_DECOMPRESSED_BYTES}, or holds a record larger than the
 *       topic's {@code max.decompressed.message.bytes} → INVALID_RECORD;</li>
 *   <li>compacted topics: every record has a key → INVALID_RECORD;</li>
 *   <li>CreateTime topics: each record's timestamp (unless -1) within
 *       {@code message.timestamp.before.max.ms} / {@code after.max.ms} of now; a batch that
 *       claims LogAppendTime otherwise → INVALID_TIMESTAMP.</li>
 * </ul>
 * The first failure ends the walk; its record index goes to the client (Produce's
 * {@code record_errors}).
 *
 * <p>Threading: one instance per thread ({@link #forThisThread}), since the walker keeps a
 * window for compressed batches between walks. Nothing is allocated for an uncompressed batch
 * that passes.
 */
final class RecordChecks implements RecordWalker.Visitor {
    private static final ThreadLocal<RecordChecks> PER_THREAD = ThreadLocal.withInitial(RecordChecks::new);

    private final RecordWalker walker = new RecordWalker(RecordBatch.DEFAULT_MAX_DECOMPRESSED_BYTES);
    private final RecordBatch flyweight = new RecordBatch();

    // The batch being checked.
    private boolean requireKeys;
    private boolean checkTimestamps;
    private boolean createTimeTopic;
    private boolean logAppendTimeBatch;
    private long now;
    private long beforeMaxMs;
    private long afterMaxMs;
    private Errors error;
    private int errorRecord;
    private long badTimestamp;

    static RecordChecks forThisThread() {
        return PER_THREAD.get();
    }

    /** Null if every record of the batch at {@code p} passes, else the error (with the record index). */
    AppendResult check(ByteBuffer batch, int p, LogConfig cfg, long now, String name, long logStartOffset) {
        RecordBatch rb = flyweight.wrap(batch, p);
        requireKeys = cfg.compact() && !rb.isControl();
        createTimeTopic = !cfg.logAppendTime();
        logAppendTimeBatch = rb.timestampType() == TimestampType.LOG_APPEND_TIME;
        beforeMaxMs = cfg.timestampBeforeMaxMs();
        afterMaxMs = cfg.timestampAfterMaxMs();
        checkTimestamps = logAppendTimeBatch
                || (createTimeTopic && (beforeMaxMs != Long.MAX_VALUE || afterMaxMs != Long.MAX_VALUE));
        this.now = now;
        error = Errors.NONE;
        boolean visit = requireKeys || checkTimestamps;
        Errors framing = walker.walk(rb, true, visit ? this : null, cfg.maxDecompressedMessageBytes());
        if (framing != Errors.NONE) {
            return AppendResult.recordError(framing, "Invalid record batch in " + name + ": " + walker.failure(),
                    walker.failedRecord(), logStartOffset);
        }
        if (error == Errors.INVALID_RECORD) {
            return AppendResult.recordError(error, "Compacted topic cannot accept message without key in topic "
                    + "partition " + name + ".", errorRecord, logStartOffset);
        }
        if (error == Errors.INVALID_TIMESTAMP) {
            String why = createTimeTopic && badTimestamp != RecordBatch.NO_TIMESTAMP
                    ? "Timestamp " + badTimestamp + " of record " + errorRecord + " in " + name
                            + " is out of range. The timestamp should be within [" + saturatedAdd(now, -beforeMaxMs)
                            + ", " + saturatedAdd(now, afterMaxMs) + "]"
                    : "Invalid timestamp type in record " + errorRecord + " of " + name
                            + ". Producer should not set timestamp type to LogAppendTime.";
            return AppendResult.recordError(error, why, errorRecord, logStartOffset);
        }
        return null;
    }

    /**
     * For a batch copied from another node's log: only the framing of its records, within the
     * same decompression bound; offset deltas may have gaps (compaction leaves them). Null if
     * sound, else why not.
     */
    String checkFraming(ByteBuffer batch, int p) {
        Errors framing = walker.walk(flyweight.wrap(batch, p), false, null);
        return framing == Errors.NONE ? null : walker.failure();
    }

    @Override
    public boolean record(int index, int offsetDelta, long timestamp, int keyLength, int valueLength) {
        if (requireKeys && keyLength < 0) {
            error = Errors.INVALID_RECORD;
            errorRecord = index;
            return false;
        }
        if (checkTimestamps) {
            boolean bad;
            if (createTimeTopic && timestamp != RecordBatch.NO_TIMESTAMP) {
                // Kafka's now - ts > before or ts - now > after, written so that it cannot overflow
                bad = timestamp < now - beforeMaxMs || timestamp > saturatedAdd(now, afterMaxMs);
            } else {
                bad = logAppendTimeBatch;
            }
            if (bad) {
                error = Errors.INVALID_TIMESTAMP;
                errorRecord = index;
                badTimestamp = timestamp;
                return false;
            }
        }
        return true;
    }

    private static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? (b < 0 ? Long.MIN_VALUE : Long.MAX_VALUE) : r;
    }
}
