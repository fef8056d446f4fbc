package io.brook.server.api.fetch;

import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The broker's incremental fetch sessions (KIP-227), at most
 * {@code max.incremental.fetch.session.cache.slots} of them (Kafka's name and default, 1000).
 * Memory only: a restarted broker has none, and clients that name an old session are told
 * FETCH_SESSION_ID_NOT_FOUND and start a new one with a full request.
 *
 * <p>Eviction, as Kafka's (without its privileged follower sessions, which a single node does
 * not have, and without its shards): when a full request of epoch 0 finds every slot taken,
 * <ol>
 *   <li>the least recently used session is evicted if it was not used for
 *       {@link #MIN_EVICTION_MS} (Kafka's constant {@code MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS});</li>
 *   <li>otherwise, among the sessions created longer ago than that, the one with the fewest
 *       partitions (the smallest id among equals) is evicted if the new session has strictly more;</li>
 *   <li>otherwise no session is created and the request is answered as a sessionless one
 *       (session id 0): the client keeps sending full requests and tries again with each.</li>
 * </ol>
 * So a session younger than two minutes is never evicted, nor one used in the last two minutes
 * unless a bigger session needs its slot. Step 2 scans the sessions (at most the slot count) and
 * runs only when the cache is full and the least recently used session is in use.
 *
 * <p>Memory (Brook's addition; Kafka bounds only the slots): the partitions of all sessions
 * together stay within {@code brook.fetch.session.max.partitions} (about 160 bytes each, estimated from the object layout). A
 * session that would pass it is not created, and one that an incremental request would grow past
 * it is closed ({@link #touch} says so): its client is answered with session id 0 and starts
 * over with full requests, which still work. Without it, requests naming made-up partitions could
 * fill the heap through a thousand sessions, or through one that grows with every request.
 *
 * <p>Concurrency: all methods synchronize on the cache and never take a session's monitor
 * (a session's size is read through a volatile), so a request may call them whether or not it
 * holds its session's monitor.
 */
public final class FetchSessionCache {

    /** How long a session is safe from eviction after its creation and after its last use. */
    public static final long MIN_EVICTION_MS = 120_000;

    private final int maxSessions;
    private final long maxPartitions;
    private final long minEvictionMs;
    /** By id, least recently used first. */
    private final LinkedHashMap<Integer, FetchSession> sessions = new LinkedHashMap<>();
    private long evictions;
    /** The partitions of all sessions, each session counted at its {@code accountedSize}. */
    private long partitions;

    public FetchSessionCache(int maxSessions, long maxPartitions) {
        this(maxSessions, maxPartitions, MIN_EVICTION_MS);
    }

    FetchSessionCache(int maxSessions, long maxPartitions, long minEvictionMs) {
        this.maxSessions = maxSessions;
        this.maxPartitions = maxPartitions;
        this.minEvictionMs = minEvictionMs;
    }

    /**
     * A new session over {@code partitions} (which become its own, in that order), or null when
     * no slot is free and none may be evicted for it.
     */
    synchronized FetchSession create(long nowMs, boolean byId, Collection<SessionPartition> partitions) {
        if (maxSessions <= 0 || this.partitions + partitions.size() > maxPartitions
                || (sessions.size() >= maxSessions && !evictFor(partitions.size(), nowMs))) {
            return null;
        }
        int id;
        do {
            id = ThreadLocalRandom.current().nextInt(1, Integer.MAX_VALUE);
        } while (sessions.containsKey(id));
        FetchSession s = new FetchSession(id, byId, nowMs, partitions);
        sessions.put(id, s);
        s.accountedSize = s.size();
        this.partitions += s.accountedSize;
        return s;
    }

    private boolean evictFor(int newSize, long nowMs) {
        Iterator<FetchSession> it = sessions.values().iterator();
        if (!it.hasNext()) {
            return false;
        }
        FetchSession lru = it.next();
        if (nowMs - lru.lastUsedMs > minEvictionMs) {
            it.remove();
            partitions -= lru.accountedSize;
            evictions++;
            return true;
        }
        FetchSession smallest = null;
        for (FetchSession s : sessions.values()) {
            if (nowMs - s.createdMs > minEvictionMs
                    && (smallest == null || s.size() < smallest.size()
                            || (s.size() == smallest.size() && s.id < smallest.id))) {
                smallest = s;
            }
        }
        if (smallest == null || newSize <= smallest.size()) {
            return false;
        }
        sessions.remove(smallest.id);
        partitions -= smallest.accountedSize;
        evictions++;
        return true;
    }

    /** The session with this id, or null (never created, closed, evicted, or before a restart). */
    synchronized FetchSession get(int id) {
        return sessions.get(id);
    }

    /**
     * Records a use of the session after a request changed it: it becomes the most recently used
     * and its size is counted again. False when that size takes the sessions past
     * {@code brook.fetch.session.max.partitions}: the session is then closed.
     */
    synchronized boolean touch(FetchSession s, long nowMs) {
        if (!sessions.remove(s.id, s)) {
            return true; // closed or evicted meanwhile: its next request learns it
        }
        partitions += s.size() - s.accountedSize;
        s.accountedSize = s.size();
        if (partitions > maxPartitions) {
            partitions -= s.accountedSize;
            return false;
        }
        s.lastUsedMs = nowMs;
        sessions.put(s.id, s);
        return true;
    }

    /** Closes the session with this id; false when there was none. */
    synchronized boolean remove(int id) {
        FetchSession s = sessions.remove(id);
        if (s != null) {
            partitions -= s.accountedSize;
        }
        return s != null;
    }

    /** Closes this session, unless its id was already given to another one. */
    synchronized void remove(FetchSession s) {
        if (sessions.remove(s.id, s)) {
            partitions -= s.accountedSize;
        }
    }

    /** The partitions of all open sessions. */
    public synchronized long partitions() {
        return partitions;
    }

    /** Sessions open now. */
    public synchronized int size() {
        return sessions.size();
    }

    /** Sessions evicted to make room for others since the start. */
    public synchronized long evictions() {
        return evictions;
    }
}
