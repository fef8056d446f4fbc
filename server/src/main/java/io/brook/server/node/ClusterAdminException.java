package io.brook.server.node;

import io.brook.wire.protocol.Errors;

/** A topic decision of the controller refused or not reached, with the Kafka error to answer. */
public final class ClusterAdminException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final transient Errors error;

    public ClusterAdminException(Errors error, String message) {
        super(message);
        this.error = error;
    }

    public Errors error() {
        return error;
    }

    /** The error of a failed decision future's cause: its own, or UNKNOWN_SERVER_ERROR. */
    public static Errors errorOf(Throwable t) {
        Throwable c = t;
        while (c instanceof java.util.concurrent.CompletionException && c.getCause() != null) {
            c = c.getCause();
        }
        return c instanceof ClusterAdminException e ? e.error() : Errors.UNKNOWN_SERVER_ERROR;
    }

    /** The message of a failed decision future's cause. */
    public static String messageOf(Throwable t) {
        Throwable c = t;
        while (c instanceof java.util.concurrent.CompletionException && c.getCause() != null) {
            c = c.getCause();
        }
        return c.getMessage();
    }
}
