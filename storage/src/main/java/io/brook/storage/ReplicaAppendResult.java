package io.brook.storage;

import io.brook.wire.protocol.Errors;

/**
 * Outcome of {@link Log#appendReplicated}: the error (NONE on success), the offsets of the first
 * and last batch appended (-1 when none was) and how many bytes from the buffer's position those
 * batches took. On success the bytes after them are a partial batch the fetch cut off (or
 * nothing); after a failure the batches before the failing one may have been appended, and these
 * fields say which.
 *
 * @param error         NONE, or why the append stopped (see {@link Log#appendReplicated})
 * @param errorMessage  human-readable reason for a failure, or null
 * @param firstOffset   base offset of the first batch appended, -1 if none
 * @param lastOffset    last offset of the last batch appended, -1 if none
 * @param bytesConsumed bytes of the batches appended, from the buffer's position
 */
public record ReplicaAppendResult(Errors error, String errorMessage, long firstOffset, long lastOffset,
        int bytesConsumed) {

    /** Whether at least one batch was appended. */
    public boolean appendedAny() {
        return lastOffset >= 0;
    }

    static ReplicaAppendResult nothing() {
        return new ReplicaAppendResult(Errors.NONE, null, -1L, -1L, 0);
    }

    static ReplicaAppendResult error(Errors error, String message) {
        return new ReplicaAppendResult(error, message, -1L, -1L, 0);
    }
}
