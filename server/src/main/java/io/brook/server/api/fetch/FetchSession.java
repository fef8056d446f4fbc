package io.brook.server.api.fetch;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * An incremental fetch session (KIP-227): the partitions a client fetches, in the order they are
 * read and answered, and the epoch its next request must carry. Created by a full fetch of epoch
 * 0 (see {@link FetchSessionCache}); each incremental request names only the partitions it adds
 * or whose parameters changed, lists those it drops in {@code forgotten_topics_data}, and is
 * answered with only the partitions that have something new (see
 * {@link SessionPartition#mustAnswer}).
 *
 * <p>Order: partitions that returned records move to the end of the session (as in Kafka), so
 * that under {@code max_bytes} the partitions read first take turns rather than starving the rest.
 *
 * <p>Concurrency: everything but the identity, {@link #size} and the cache's bookkeeping is
 * guarded by this object's monitor, which a request holds while it updates the session, reads
 * its partitions and commits its answer (so a duplicate request on another connection sees the
 * epoch already moved and is refused). The cache's own lock is never taken while holding it.
 */
final class FetchSession {

    /** The epoch of a full request that opens a session; the session then expects 1. */
    static final int INITIAL_EPOCH = 0;
    /** The epoch of a full request that opens none (and closes the one it names). */
    static final int FINAL_EPOCH = -1;

    final int id;
    /** Whether the session names topics by id (created at Fetch v13+); it then takes only v13+ requests. */
    final boolean byId;
    final long createdMs;
    private final LinkedHashMap<SessionPartition.Key, SessionPartition> partitions;
    private int epoch = nextEpoch(INITIAL_EPOCH);
    /** The partition count, readable without the monitor (the cache's eviction looks at it). */
    private volatile int size;
    /** Guarded by the cache. */
    long lastUsedMs;
    /** The size the cache counts this session at. Guarded by the cache. */
    int accountedSize;

    FetchSession(int id, boolean byId, long nowMs, Collection<SessionPartition> initial) {
        this.id = id;
        this.byId = byId;
        this.createdMs = nowMs;
        this.lastUsedMs = nowMs;
        this.partitions = new LinkedHashMap<>(Math.max(16, initial.size() * 4 / 3 + 1));
        for (SessionPartition p : initial) {
            partitions.put(p.key(byId), p);
        }
        this.size = partitions.size();
    }

    /** The epoch after {@code epoch}: 1 follows the largest, and a negative one stays final. */
    static int nextEpoch(int epoch) {
        if (epoch < 0) {
            return FINAL_EPOCH;
        }
        return epoch == Integer.MAX_VALUE ? 1 : epoch + 1;
    }

    /** The epoch the next incremental request must carry. Hold the monitor. */
    int epoch() {
        return epoch;
    }

    /** Moves to the next epoch: the request carrying the current one was accepted. Hold the monitor. */
    void advanceEpoch() {
        epoch = nextEpoch(epoch);
    }

    int size() {
        return size;
    }

    /** The session's partitions, in answering order; iterate while holding the monitor. */
    Collection<SessionPartition> partitions() {
        return partitions.values();
    }

    /** The session's entry for a partition, or null. Hold the monitor. */
    SessionPartition get(SessionPartition.Key key) {
        return partitions.get(key);
    }

    /** Adds a partition at the end. Hold the monitor. */
    void add(SessionPartition p) {
        partitions.put(p.key(byId), p);
        size = partitions.size();
    }

    /** Drops a partition (forgotten by the client); false when the session did not have it. Hold the monitor. */
    boolean remove(SessionPartition.Key key) {
        boolean removed = partitions.remove(key) != null;
        size = partitions.size();
        return removed;
    }

    /**
     * Moves partitions that returned records to the end, in the order given. Costs one map
     * update per partition moved. Hold the monitor.
     */
    void moveToEnd(List<SessionPartition> withRecords) {
        for (SessionPartition p : withRecords) {
            SessionPartition.Key k = p.key(byId);
            if (partitions.remove(k) != null) {
                partitions.put(k, p);
            }
        }
    }

    /** A copy of the keys in order (tests). Hold the monitor. */
    List<SessionPartition.Key> keys() {
        return new ArrayList<>(partitions.keySet());
    }

    @Override
    public String toString() {
        return "FetchSession(" + id + ", " + size + " partitions" + (byId ? ", by id" : "") + ")";
    }
}
