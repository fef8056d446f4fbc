/**
 * This node: the data directory's identity and lock ({@link io.brook.server.node.BrokerMeta},
 * cluster id and node id in {@code meta/}), random ids, the producer-id allocator (durable blocks,
 * never reused), the group coordinator's setup over {@code __consumer_offsets}, who leads each
 * partition ({@link io.brook.server.node.LeaderHints}, for KIP-951's hints in Produce and Fetch
 * errors), and the {@link io.brook.server.node.BrokerContext} that request handlers share.
 *
 * <p>Files here are written atomically and forced before they count (producer-id blocks on the
 * I/O pool, the identity at start-up); the group coordinator runs on its own thread.
 */
package io.brook.server.node;
