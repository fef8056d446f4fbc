/**
 * The network layer: the Netty listener ({@link io.brook.server.network.NetworkServer}), request
 * framing, one {@code Connection} per client that decodes, dispatches and writes answers back in
 * request order, the response encoder (zero-copy file regions for fetched records), idle-connection
 * closing, the I/O pool and the per-connection serial executor.
 *
 * <p>Handlers plug in through a small SPI: {@link io.brook.server.network.ApiHandler},
 * {@link io.brook.server.network.RequestContext} (answer once, from any thread) and the
 * {@link io.brook.server.network.ApiTable} of served keys and advertised versions. The layer knows
 * nothing of topics, logs or what handlers share.
 *
 * <p>Threads: a connection's state lives on its event loop; a request runs inline on that loop
 * when its handler {@linkplain io.brook.server.network.ApiHandler#runsOnEventLoop never blocks}
 * and nothing of the connection is queued on the I/O pool, otherwise on the I/O pool; completions
 * from any thread are handed back to the loop. Bad input closes only its connection, after the
 * answers to the requests before it.
 *
 * <p>Bounds: the frame decoder gives a connection a request only while it is below its in-flight
 * requests and bytes and its client has read its earlier answers, and stops reading the socket
 * otherwise; request bytes and unread answer bytes are bounded broker-wide
 * ({@code queued.max.request.bytes}, {@code brook.queued.max.response.bytes}); a request must
 * arrive whole within {@code brook.request.receive.timeout.ms}; connections are bounded in total
 * and per client address. A closed connection abandons its requests in flight, cancelling their
 * waiting.
 */
package io.brook.server.network;
