package io.brook.storage;

import io.brook.wire.protocol.Errors;
import io.brook.wire.record.RecordBatch;
import io.brook.wire.record.TimestampType;

import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.zip.CRC32C;

/**
 * What the log checks and rewrites in a client batch (Kafka's LogValidator): before the append
 * lock, that the entry is one batch, {@code max.message.bytes}, then every record
 * ({@link RecordChecks}: framing, count, offset deltas, timestamps and, on compacted topics,
 * keys); under it, the base offset, leader epoch and (LogAppendTime topics) the timestamp. The
 * records themselves are never re-encoded.
 *
 * <p>Threading: {@link #validate} touches no shared state (its record walker is the calling
 * thread's own) and runs on the appending thread without a lock; {@link #assign} uses this log's
 * scratch buffers and runs under the log's append lock.
 */
final class AppendValidator {
    private final String name;
    private final RecordBatch appendBatch = new RecordBatch();
    private final ByteBuffer[] oneSource = new ByteBuffer[1];
    private final ByteBuffer[] twoSources = new ByteBuffer[2];
    private final ByteBuffer scratchHeader = ByteBuffer.allocate(BatchHeader.HEADER_SIZE);

    /** @param name the log's name for messages ({@code topic-partition}) */
    AppendValidator(String name) {
        this.name = name;
    }

    /**
     * Checks {@code batch} (between its position and limit) against {@code cfg}; returns null if
     * it may be appended, else the error to answer with.
     */
    AppendResult validate(ByteBuffer batch, LogConfig cfg, Clock clock, long logStartOffset) {
        int p = batch.position();
        int bytes = batch.remaining();
        if (bytes < BatchHeader.HEADER_SIZE || BatchHeader.sizeInBytes(batch, p) != bytes) {
            return AppendResult.error(Errors.INVALID_RECORD, "a produce entry must hold exactly one record batch",
                    logStartOffset);
        }
        if (bytes > cfg.maxMessageBytes()) {
            return AppendResult.error(Errors.MESSAGE_TOO_LARGE, "the batch of " + bytes
                    + " bytes exceeds max.message.bytes " + cfg.maxMessageBytes(), logStartOffset);
        }
        if (BatchHeader.magic(batch, p) != RecordBatch.MAGIC) {
            return AppendResult.error(Errors.CORRUPT_MESSAGE, "record batch magic " + BatchHeader.magic(batch, p)
                    + " in " + name, logStartOffset);
        }
        return RecordChecks.forThisThread().check(batch, p, cfg, clock.millis(), name, logStartOffset);
    }

    /**
     * Sets the base offset, leader epoch and (LogAppendTime) timestamp of the batch of
     * {@code bytes} bytes at {@code p}: in place when the buffer is writable, else in a copy of
     * its header. Returns the buffers to write: the batch alone, or the rewritten header and the
     * batch positioned after its original header (the caller restores the position).
     */
    ByteBuffer[] assign(ByteBuffer batch, int p, int bytes, long base, int leaderEpoch, boolean logAppendTime,
            long now) {
        if (!batch.isReadOnly()) {
            BatchHeader.setBaseOffset(batch, p, base);
            BatchHeader.setLeaderEpoch(batch, p, leaderEpoch);
            if (logAppendTime) {
                appendBatch.wrap(batch, p).setMaxTimestamp(TimestampType.LOG_APPEND_TIME, now);
            }
            oneSource[0] = batch;
            return oneSource;
        }
        ByteBuffer h = scratchHeader;
        h.clear();
        for (int i = 0; i < BatchHeader.HEADER_SIZE; i++) {
            h.put(i, batch.get(p + i));
        }
        BatchHeader.setBaseOffset(h, 0, base);
        BatchHeader.setLeaderEpoch(h, 0, leaderEpoch);
        if (logAppendTime) {
            h.putShort(BatchHeader.ATTRIBUTES,
                    (short) (BatchHeader.attributes(h, 0) | BatchHeader.TIMESTAMP_TYPE_MASK));
            h.putLong(BatchHeader.MAX_TIMESTAMP, now);
            CRC32C crc = new CRC32C();
            ByteBuffer hv = h.duplicate();
            hv.position(BatchHeader.ATTRIBUTES).limit(BatchHeader.HEADER_SIZE);
            crc.update(hv);
            ByteBuffer body = batch.duplicate();
            body.position(p + BatchHeader.HEADER_SIZE).limit(p + bytes);
            crc.update(body);
            h.putInt(BatchHeader.CRC, (int) crc.getValue());
        }
        h.position(0).limit(BatchHeader.HEADER_SIZE);
        batch.position(p + BatchHeader.HEADER_SIZE);
        twoSources[0] = h;
        twoSources[1] = batch;
        return twoSources;
    }
}
