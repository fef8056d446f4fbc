/**
 * Fetch and its long poll: the handler reads every requested partition once and, when fewer than
 * {@code min_bytes} are there, parks a {@code DelayedFetch} in {@link
 * io.brook.server.api.fetch.FetchWaiters} until a watched partition's high watermark moves (a
 * wake-up from the storage's flusher thread) or {@code max_wait_ms} passes on the broker's timer.
 * Re-checks run on the connection's event loop (or the I/O pool when inline requests are off),
 * never on the thread that woke them. Nothing polls. A fetch stops waiting when its connection
 * closes, and waits at all only while the broker's waiters stay within
 * {@code brook.fetch.max.waiting.partitions}; answers are capped by {@code fetch.max.bytes}.
 *
 * <p>Incremental fetch sessions (KIP-227): {@link io.brook.server.api.fetch.FetchSessionCache}
 * holds the sessions (and evicts them), {@code FetchSession} one session's partitions in answering
 * order, {@code SessionPartition} one partition's request parameters and what its client was last
 * told, {@code FetchPass} one read over a fetch's partitions that leaves out, for an incremental
 * fetch, those with nothing new.
 */
package io.brook.server.api.fetch;
