package io.brook.cluster.metadata;

/**
 * Bytes that are not a well-formed metadata batch or snapshot: a length or count beyond what
 * remains, an unknown type or version, trailing bytes, a bad checksum. Nothing was applied.
 */
public final class CorruptMetadataException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CorruptMetadataException(String message) {
        super(message);
    }
}
