package io.brook.storage;

import io.brook.wire.protocol.Errors;

/**
 * Outcome of {@link Log#read}: the error (NONE, OFFSET_OUT_OF_RANGE, KAFKA_STORAGE_ERROR), the
 * file slice to send (null when there is nothing to return yet) and the partition's offsets as
 * of the read, for the Fetch response.
 */
public final class LogReadResult {
    private final Errors error;
    private final FileRecords records;
    private final long highWatermark;
    private final long logStartOffset;
    private final long lastStableOffset;
    private final long logEndOffset;

    LogReadResult(Errors error, FileRecords records, long highWatermark, long logStartOffset, long lastStableOffset,
            long logEndOffset) {
        this.error = error;
        this.records = records;
        this.highWatermark = highWatermark;
        this.logStartOffset = logStartOffset;
        this.lastStableOffset = lastStableOffset;
        this.logEndOffset = logEndOffset;
    }

    public Errors error() { return error; }

    /** The batches to send, or null if none (fetch offset at the high watermark, or an error). */
    public FileRecords records() { return records; }

    public int sizeInBytes() { return records == null ? 0 : records.sizeInBytes(); }

    public long highWatermark() { return highWatermark; }

    public long logStartOffset() { return logStartOffset; }

    public long lastStableOffset() { return lastStableOffset; }

    public long logEndOffset() { return logEndOffset; }

    @Override
    public String toString() {
        return "LogReadResult(" + error + ", " + records + ", hw=" + highWatermark + ")";
    }
}
