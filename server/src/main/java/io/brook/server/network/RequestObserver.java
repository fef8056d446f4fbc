package io.brook.server.network;

import io.brook.wire.protocol.ApiKey;

/**
 * Told of every request that was answered (or completed without an answer, acks=0), once its
 * answer was handed to the socket, with the times of its path through the broker, all from
 * {@link System#nanoTime()}:
 *
 * <pre>
 * received ──queue──> started ──local──> handled ──waiting──> completed ──response queue──> writing ──write──> written
 * (frame read)       (handler runs)     (it returned)         (answer known)                (its turn)         (handed to Netty)
 * </pre>
 *
 * A request dispatched inline starts when it was received; one answered before its handler
 * returned has {@code completed} before {@code handled}. Called on the connection's event
 * loop: return quickly, never block, never allocate per call.
 */
@FunctionalInterface
public interface RequestObserver {

    /** Observes nothing. */
    RequestObserver NONE = (key, version, received, started, handled, completed, writing, written, failed) -> { };

    /**
     * {@code failed}: the handler threw and the request was answered with UNKNOWN_SERVER_ERROR.
     */
    void answered(ApiKey key, short version, long received, long started, long handled, long completed, long writing,
            long written, boolean failed);
}
