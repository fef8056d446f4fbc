package io.brook.coordinator.runtime;

import java.util.Objects;

/**
 * Why a {@link CoordinatorLog} could not write or read records, in terms a coordinator can turn
 * into an error code for its clients. Implementations translate their own failures (storage error
 * codes, I/O exceptions) into one of these reasons.
 */
public final class CoordinatorLogException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** What went wrong, as far as a coordinator cares. */
    public enum Reason {
        /** The records are more than the log accepts in one write. */
        RECORDS_TOO_LARGE,
        /** This node does not lead the partition. */
        NOT_LEADER,
        /** Anything else: the log is closed, offline, or failed to read or write. */
        UNAVAILABLE
    }

    private final Reason reason;

    public CoordinatorLogException(Reason reason, String message, Throwable cause) {
        super(reason + ": " + message, cause);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    public CoordinatorLogException(Reason reason, String message) {
        this(reason, message, null);
    }

    public Reason reason() {
        return reason;
    }
}
