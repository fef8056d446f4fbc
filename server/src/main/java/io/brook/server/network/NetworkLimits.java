package io.brook.server.network;

/**
 * The bounds every connection of a listener shares: per connection, the requests and request
 * bytes in flight ({@code brook.connection.max.inflight.requests},
 * {@code brook.connection.max.inflight.bytes}); broker-wide, the request bytes buffered
 * ({@code queued.max.request.bytes}) and the answer bytes queued for clients that have not read
 * them yet ({@code brook.queued.max.response.bytes}).
 */
record NetworkLimits(int maxInflightRequests, long maxInflightBytes, ByteBudget requestBytes,
        ByteBudget responseBytes) {
}
