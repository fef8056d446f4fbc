/**
 * Fetch and its long poll: the handler reads every requested partition once and, when fewer than
 * {@code min_bytes} are there, parks a {@code DelayedFetch} in {@link
 * io.brook.server.api.fetch.FetchWaiters} until a watched partition's high watermark moves (a
 * wake-up from the storage's flusher thread) or {@code max_wait_ms} passes on the broker's timer.
 * Re-checks run on the connection's event loop (or the I/O pool when inline requests are off),
 * never on the thread that woke them. Nothing polls.
 */
package io.brook.server.api.fetch;
