package io.brook.server.telemetry;

import io.brook.wire.protocol.Errors;

/** A client metrics subscription's configs were refused, with the error Kafka answers for it. */
public final class InvalidSubscriptionException extends Exception {

    private static final long serialVersionUID = 1L;

    private final transient Errors error;

    InvalidSubscriptionException(Errors error, String message) {
        super(message, null, false, false);
        this.error = error;
    }

    /** INVALID_REQUEST or INVALID_CONFIG, as Kafka's ClientMetricsConfigs decides. */
    public Errors error() {
        return error;
    }
}
