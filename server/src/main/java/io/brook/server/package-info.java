/**
 * Brook's broker. This package is the public API: {@link io.brook.server.Brook} (with its
 * builder) for embedding, and {@link io.brook.server.BrookMain}, the {@code bin/brook} command.
 * Everything else lives in sub-packages that only this package wires together: {@code config}
 * (the settings), {@code network} (sockets, framing, dispatch, ordered responses), {@code api}
 * (one handler per Kafka API and the table of what is served), {@code topic} (the topics and
 * their partition logs), {@code node} (this node's identity, producer ids, the group coordinator
 * and what handlers share), {@code time} (the timer of delayed operations) and {@code launch}
 * (what {@code bin/brook} runs besides the broker).
 *
 * <h2>Request path</h2>
 * <pre>
 * socket -> RequestFrameDecoder -> Connection -> ApiTable[key] -> ApiHandler -> RequestContext.respond
 *           (size prefix,          (header,      (version         (event loop   (any thread; the
 *            bounds)                body decode,   range)           or I/O pool)  Connection writes
 *                                   in-flight                                     answers in request
 *                                   queue)                                        order)
 * </pre>
 *
 * <h2>Threads</h2>
 * <ul>
 *   <li>Netty event loops ({@code num.network.threads}, {@code brook-network-*}) own the sockets:
 *       framing, header and body decoding, response encoding and each connection's reorder queue.
 *       With {@code brook.network.inline.requests} (the default) they also run Produce and Fetch
 *       when the connection has nothing queued on the I/O pool: appends write to the page cache
 *       and reads take file slices of it, and the encoder reads slices below 16 KiB into the
 *       response with {@code pread}. So an event loop does touch the disk through the page cache
 *       — a read that misses it stalls every connection of that loop for its duration — but it
 *       never forces (fsync) and never waits for another thread.</li>
 *   <li>The I/O pool ({@code num.io.threads}, {@code brook-io-*}) runs every other handler, and
 *       Produce and Fetch when inline requests are off or an earlier request of the connection is
 *       still there. A connection's requests are handled one at a time in arrival order (a
 *       per-connection serial executor), so pipelined produce requests append in order; different
 *       connections run in parallel. Topic creation and deletion, and producer-id blocks, write
 *       and force files here.</li>
 *   <li>Storage threads (recovery, the group-commit flushers, retention, compaction) belong to the
 *       storage module. A flush completes acks=all produce answers and wakes waiting fetches on the
 *       flusher's thread; both only hand work back to an event loop or the I/O pool.</li>
 *   <li>The group coordinator's thread (module {@code coordinator}) owns all consumer-group state;
 *       the group handlers hand requests to it and its completions only answer them, so a JoinGroup
 *       parked for a rebalance holds no thread of the broker.</li>
 *   <li>The timer thread ({@code brook-timer}) fires the deadlines of delayed operations (long-poll
 *       fetches, acks=all time-outs, idle connections) and hands the work to an event loop or the
 *       I/O pool.</li>
 * </ul>
 *
 * <h2>Failure isolation</h2>
 * Malformed input (a bad size prefix, header or body, an unknown key or an unserved version)
 * closes only its connection, after answering the requests read before it. A handler exception
 * becomes UNKNOWN_SERVER_ERROR for that request only; a partition whose log fails answers
 * KAFKA_STORAGE_ERROR while the others carry on.
 *
 * <h2>Back-pressure</h2>
 * Per connection: once requests of {@code brook.connection.max.inflight.bytes} are unanswered, or
 * once unsent answers pass 1 MiB (a client that does not read), the broker stops reading from that
 * connection until it drains; {@code socket.request.max.bytes} bounds one request. Per broker:
 * {@code max.connections} refuses further connections. Nothing queues without bound: the I/O
 * pool's queue holds at most what the connections' in-flight bounds let in.
 */
package io.brook.server;
