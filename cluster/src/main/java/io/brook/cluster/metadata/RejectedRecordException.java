package io.brook.cluster.metadata;

/**
 * A well-formed record that does not fit the image it is applied to (a partition of an unknown
 * topic, a stale broker epoch, a second topic of one name). The image is left unchanged. The
 * check depends only on the image and the record, so every node rejects the same records.
 */
public final class RejectedRecordException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public RejectedRecordException(String message) {
        super(message);
    }
}
