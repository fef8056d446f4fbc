package io.brook.server.network;

/**
 * The bounds every connection of a listener shares: per connection, the requests and request
 * bytes in flight ({@code brook.connection.max.inflight.requests},
 * {@code brook.connection.max.inflight.bytes}); broker-wide, the request bytes buffered
 * ({@code queued.max.request.bytes}, which also counts the heap their decoded forms take), those
 * of SASL clients that have not authenticated yet (an eighth of it, apart: see {@link
 * RequestFrameDecoder}) and the answer bytes queued for clients that have not read them yet
 * ({@code brook.queued.max.response.bytes}); per request, the heap its decoded form may take
 * ({@code brook.request.max.decoded.bytes}, as the reader estimates it).
 */
record NetworkLimits(int maxInflightRequests, long maxInflightBytes, ByteBudget requestBytes,
        ByteBudget unauthenticatedBytes, ByteBudget responseBytes, long maxDecodedBytes) {

    /** The share of {@code queued.max.request.bytes} that clients which have not authenticated may hold. */
    static long unauthenticatedLimit(long queuedMaxRequestBytes) {
        return queuedMaxRequestBytes > 0 ? Math.max(1, queuedMaxRequestBytes / 8) : queuedMaxRequestBytes;
    }
}
