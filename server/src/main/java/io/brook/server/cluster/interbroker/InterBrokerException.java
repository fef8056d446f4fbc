package io.brook.server.cluster.interbroker;

/**
 * A request to another broker that got no answer: the node is unknown or unreachable, the
 * connection dropped before the answer came, the answer did not come within the time-out, too
 * many requests wait for that node, or the client is closed. Always retriable by the caller: a
 * request that was sent may or may not have been processed by the other node.
 */
public final class InterBrokerException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public InterBrokerException(String message) {
        super(message);
    }

    public InterBrokerException(String message, Throwable cause) {
        super(message, cause);
    }
}
