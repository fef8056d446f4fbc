package io.brook.coordinator.group;

import io.brook.wire.protocol.Errors;

/**
 * A transaction marker for a partition of {@code __consumer_offsets} that the group coordinator
 * cannot write now, with Kafka's error for it (COORDINATOR_LOAD_IN_PROGRESS while the partition
 * loads, NOT_COORDINATOR once its load failed), for WriteTxnMarkers to answer.
 */
public final class CoordinatorMarkerException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient Errors error;

    public CoordinatorMarkerException(Errors error, String message) {
        super(message, null, false, false);
        this.error = error;
    }

    public Errors error() {
        return error;
    }
}
