package io.brook.wire.record;

/**
 * A record batch whose contents cannot be decoded: a length that points past the data, a malformed
 * varint, a compressed section that does not decompress or decompresses to more than the allowed
 * size, a record count that does not match. The message names the field and the numbers involved.
 *
 * <p>Header-level problems found by {@link RecordBatch#validateClientBatch(int)} are reported as
 * error codes instead; this exception is for the (rarer) paths that decode records.
 */
public final class CorruptRecordException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CorruptRecordException(String message) {
        super(message);
    }

    public CorruptRecordException(String message, Throwable cause) {
        super(message, cause);
    }
}
