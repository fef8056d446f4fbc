package io.brook.storage;

import io.brook.wire.protocol.Errors;
import io.brook.wire.record.RecordBatch;
import io.brook.wire.record.RecordWalker;
import io.brook.wire.record.TimestampType;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

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
 * A framing failure ends the walk and refuses the batch (its record, if the walker knows it, goes
 * to the client). A missing key or a timestamp out of range does not: as Kafka does, every record
 * is checked and each one at fault is named in Produce's {@code record_errors}, so that a client
 * fails those records and may retry the others. The batch's error is INVALID_TIMESTAMP if any
 * timestamp failed, else INVALID_RECORD, with Kafka's summary as its message. Only the first
 * {@value #MESSAGES_SHOWN} record errors carry a message of their own (the rest leave it null, and
 * clients fall back to the summary), and a batch names at most one record at fault per
 * {@value #BATCH_BYTES_PER_ERROR} bytes of its size (every one, for records of that size or more;
 * the summary still counts them all): so the heap an answer takes, and its size on the wire, stay
 * below the batch's own however many tiny records fail, where Kafka names each with its message.
 *
 * <p>Threading: one instance per thread ({@link #forThisThread}), since the walker keeps a
 * window for compressed batches between walks. Nothing is allocated for an uncompressed batch
 * that passes.
 */
final class RecordChecks implements RecordWalker.Visitor {
    /** How many record errors carry their own message (Kafka's summary shows as many). */
    static final int MESSAGES_SHOWN = 3;
    /** A batch names at most one record error per this many of its bytes (a record error's heap). */
    static final int BATCH_BYTES_PER_ERROR = 64;

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
    private String name;
    private long baseOffset;
    /** The records at fault so far, as many as are named; allocated only for a batch that has one. */
    private List<RecordError> errors;
    private int errorCount;
    private int errorsNamed;
    private boolean timestampFailed;

    static RecordChecks forThisThread() {
        return PER_THREAD.get();
    }

    /** Null if every record of the batch at {@code p} passes, else the error (with the records at fault). */
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
        this.name = name;
        baseOffset = rb.baseOffset();
        errors = null;
        errorCount = 0;
        errorsNamed = Math.max(MESSAGES_SHOWN, rb.sizeInBytes() / BATCH_BYTES_PER_ERROR);
        timestampFailed = false;
        boolean visit = requireKeys || checkTimestamps;
        Errors framing = walker.walk(rb, true, visit ? this : null, cfg.maxDecompressedMessageBytes());
        List<RecordError> found = errors;
        errors = null;
        if (framing != Errors.NONE) {
            int at = walker.failedRecord();
            return AppendResult.recordErrors(framing, "Invalid record batch in " + name + ": " + walker.failure(),
                    at < 0 ? List.of() : List.of(new RecordError(at, walker.failure())), logStartOffset);
        }
        if (found == null) {
            return null;
        }
        if (timestampFailed) {
            return AppendResult.recordErrors(Errors.INVALID_TIMESTAMP,
                    "One or more records have been rejected due to invalid timestamp", found, logStartOffset);
        }
        return AppendResult.recordErrors(Errors.INVALID_RECORD, "One or more records have been rejected due to "
                + errorCount + " record errors in total, and only showing the first three errors at most: "
                + found.subList(0, Math.min(found.size(), MESSAGES_SHOWN)), found, logStartOffset);
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
            fail(index, shown() ? "Compacted topic cannot accept message without key in topic partition " + name : null);
        } else if (checkTimestamps) {
            if (createTimeTopic && timestamp != RecordBatch.NO_TIMESTAMP) {
                // Kafka's now - ts > before or ts - now > after, written so that it cannot overflow
                if (timestamp < now - beforeMaxMs || timestamp > saturatedAdd(now, afterMaxMs)) {
                    timestampFailed = true;
                    fail(index, shown() ? "Timestamp " + timestamp + " of message with offset "
                            + (baseOffset + offsetDelta) + " is out of range. The timestamp should be within ["
                            + saturatedAdd(now, -beforeMaxMs) + ", " + saturatedAdd(now, afterMaxMs) + "]" : null);
                }
            } else if (logAppendTimeBatch) {
                timestampFailed = true;
                fail(index, shown() ? "Invalid timestamp type in record " + index + " of " + name
                        + ". Producer should not set timestamp type to LogAppendTime." : null);
            }
        }
        return true;
    }

    /** Whether the next record error carries a message (so that only those are built). */
    private boolean shown() {
        return errors == null || errors.size() < MESSAGES_SHOWN;
    }

    /** Notes the record at {@code index} as at fault, with {@code message} (null past the first few). */
    private void fail(int index, String message) {
        errorCount++;
        if (errors == null) {
            errors = new ArrayList<>();
        }
        if (errors.size() < errorsNamed) {
            errors.add(new RecordError(index, message));
        }
    }

    private static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? (b < 0 ? Long.MIN_VALUE : Long.MAX_VALUE) : r;
    }
}
