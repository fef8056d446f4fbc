package io.brook.server.network;

import io.brook.wire.protocol.ApiRequest;

/**
 * The broker side of one Kafka API, as the network layer calls it.
 *
 * <p>Threading: {@link #handle} runs on an I/O thread — or, for a request its handler says
 * {@link #runsOnEventLoop never blocks}, on the connection's event loop when nothing of that
 * connection is queued for the I/O pool — and for any one connection the calls are made one at a
 * time in request order (so two Produce requests of a connection append in the order they were
 * sent). It may answer at once or later from any thread through {@link RequestContext#respond};
 * the network layer puts responses back into request order.
 *
 * <p>When {@link #handle} throws, the client gets the request's own
 * {@linkplain ApiRequest#errorResponse error response} (generated from the schemas) with
 * UNKNOWN_SERVER_ERROR, for that request only.
 *
 * @param <Q> the request body type
 */
public interface ApiHandler<Q extends ApiRequest> {

    void handle(RequestContext ctx, Q request);

    /**
     * True when {@link #handle} of this request never blocks and costs little CPU: no lock held
     * across I/O or another request, no fsync, no waiting for other threads — only page-cache
     * reads and writes and work in proportion to the request's bytes with a small factor. Such a
     * request may run on the event loop, which saves two thread hand-offs (to the I/O pool and
     * back) but stalls every connection of that loop while it runs; so a request whose cost a
     * client can multiply (a compressed batch that must be decompressed to be checked) answers
     * false. Waiting is still allowed through callbacks (a durability future, a delayed fetch).
     * Called on the event loop, once per request: it must itself be cheap.
     */
    default boolean runsOnEventLoop(Q request) {
        return false;
    }
}
