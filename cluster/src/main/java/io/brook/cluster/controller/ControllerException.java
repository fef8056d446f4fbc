package io.brook.cluster.controller;

/** A controller decision refused, with the Kafka error its request is answered with. */
public final class ControllerException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final ControllerError error;

    public ControllerException(ControllerError error, String message) {
        super(message);
        this.error = error;
    }

    public ControllerError error() {
        return error;
    }
}
