package io.brook.server.network;

import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.Errors;

/**
 * The broker side of one Kafka API, as the network layer calls it.
 *
 * <p>Threading: {@link #handle} runs on an I/O thread — or, for a handler that says it
 * {@link #runsOnEventLoop never blocks}, on the connection's event loop when nothing of that
 * connection is queued for the I/O pool — and for any one connection the calls are made one at a
 * time in request order (so two Produce requests of a connection append in the order they were
 * sent). It may answer at once or later from any thread through {@link RequestContext#respond};
 * the network layer puts responses back into request order.
 *
 * @param <Q> the request body type
 */
public interface ApiHandler<Q extends ApiMessage> {

    void handle(RequestContext ctx, Q request);

    /**
     * True when {@link #handle} never blocks: no lock held across I/O or another request, no
     * fsync, no waiting for other threads — only CPU work and page-cache reads and writes. Such a
     * handler may run on the event loop, which saves two thread hand-offs per request (to the
     * I/O pool and back) but stalls every connection of that loop while it runs. Waiting is
     * still allowed through callbacks (a durability future, a delayed fetch).
     */
    default boolean runsOnEventLoop() {
        return false;
    }

    /**
     * A response to {@code request} that carries {@code error} everywhere it has an error code
     * (top level, per topic, per partition, mirroring what the request asked for). Used when the
     * handler failed with an exception: the client gets an error for that request only.
     */
    ApiMessage errorResponse(Q request, short version, Errors error);
}
