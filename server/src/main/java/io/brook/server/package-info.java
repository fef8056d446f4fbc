/**
 * The broker: network server, request dispatch, topic registry, the embedded {@link
 * io.brook.server.Brook} API and the {@code bin/brook} command ({@link io.brook.server.BrookMain}).
 *
 * <h2>Request path</h2>
 * <pre>
 * socket -> RequestFrameDecoder -> Connection -> ApiTable[key] -> ApiHandler -> RequestContext.respond
 *           (size prefix,          (header,      (version       (on the I/O     (any thread; the
 *            bounds)                body decode,   range)          pool)           Connection writes
 *                                   in-flight                                      answers in request
 *                                   queue)                                         order)
 * </pre>
 *
 * <h2>Threads</h2>
 * <ul>
 *   <li>Netty event loops ({@code num.network.threads}) own the sockets: framing, header and body
 *       decoding, response encoding and the per-connection reorder queue. They never touch a
 *       disk.</li>
 *   <li>The I/O pool ({@code num.io.threads}) runs handlers. The requests of one connection are
 *       handled one at a time in arrival order (a per-connection serial executor), so pipelined
 *       produce requests append in order; different connections run in parallel. A handler that
 *       must wait (acks=all for the group commit, a long-poll fetch for data) returns at once and
 *       answers later, so the next request of the connection is already being handled.</li>
 *   <li>Storage threads (the group-commit flusher, retention, compaction) belong to the storage
 *       module; their completions only hand work back to the I/O pool or the event loop.</li>
 *   <li>The group coordinator's own thread (module {@code coordinator}) owns all consumer-group
 *       state; the group handlers ({@code GroupHandlers}) hand requests to it and its completions
 *       only call {@code RequestContext.respond}. A JoinGroup parked for a rebalance therefore
 *       holds no I/O thread.</li>
 *   <li>A hashed-wheel timer fires the deadlines of delayed operations.</li>
 * </ul>
 *
 * <h2>Failure isolation</h2>
 * Malformed input closes only its connection (after answering the requests before it); a handler
 * exception becomes UNKNOWN_SERVER_ERROR for that request only; back-pressure (in-flight request
 * bytes, unsent answer bytes) pauses reading from one connection, never the broker.
 */
package io.brook.server;
