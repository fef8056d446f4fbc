package io.brook.storage;

import io.brook.wire.protocol.Errors;

import java.util.List;

/**
 * Outcome of {@link Log#append}: the error (NONE on success) and, on success, the offsets the
 * batch holds. A duplicate (idempotent retry of a batch already in the log) is a success that
 * reports the original batch's offsets and wrote nothing.
 */
public final class AppendResult {
    private final Errors error;
    private final String errorMessage;
    private final long baseOffset;
    private final long lastOffset;
    private final long logAppendTimeMs;
    private final long logStartOffset;
    private final boolean duplicate;
    private final List<RecordError> recordErrors;

    AppendResult(Errors error, String errorMessage, long baseOffset, long lastOffset, long logAppendTimeMs,
            long logStartOffset, boolean duplicate) {
        this(error, errorMessage, baseOffset, lastOffset, logAppendTimeMs, logStartOffset, duplicate, List.of());
    }

    private AppendResult(Errors error, String errorMessage, long baseOffset, long lastOffset, long logAppendTimeMs,
            long logStartOffset, boolean duplicate, List<RecordError> recordErrors) {
        this.recordErrors = recordErrors;
        this.error = error;
        this.errorMessage = errorMessage;
        this.baseOffset = baseOffset;
        this.lastOffset = lastOffset;
        this.logAppendTimeMs = logAppendTimeMs;
        this.logStartOffset = logStartOffset;
        this.duplicate = duplicate;
    }

    static AppendResult error(Errors error, String message, long logStartOffset) {
        return new AppendResult(error, message, -1L, -1L, -1L, logStartOffset, false);
    }

    /** A failure caused by the records {@code recordErrors} names (none: the batch as a whole). */
    static AppendResult recordErrors(Errors error, String message, List<RecordError> recordErrors,
            long logStartOffset) {
        return new AppendResult(error, message, -1L, -1L, -1L, logStartOffset, false, List.copyOf(recordErrors));
    }

    public Errors error() { return error; }

    /**
     * The records of the batch that failed validation, in batch order (Produce's
     * {@code record_errors}); empty when the error is not about particular records.
     */
    public List<RecordError> recordErrors() { return recordErrors; }

    /** Human-readable reason for a failure (Produce's error_message), or null. */
    public String errorMessage() { return errorMessage; }

    /** Offset of the first record of the batch, -1 on error. */
    public long baseOffset() { return baseOffset; }

    public long lastOffset() { return lastOffset; }

    /** The broker's append time for LogAppendTime topics, else -1 (Produce's log_append_time_ms). */
    public long logAppendTimeMs() { return logAppendTimeMs; }

    public long logStartOffset() { return logStartOffset; }

    public boolean duplicate() { return duplicate; }

    @Override
    public String toString() {
        return error == Errors.NONE
                ? "AppendResult(" + baseOffset + ".." + lastOffset + (duplicate ? ", duplicate" : "") + ")"
                : "AppendResult(" + error + ": " + errorMessage + ")";
    }
}
