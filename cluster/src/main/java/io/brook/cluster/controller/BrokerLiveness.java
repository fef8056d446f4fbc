package io.brook.cluster.controller;

import java.util.HashMap;
import java.util.Map;

/**
 * When the controller last heard from each broker (a registration or a heartbeat), on its own
 * clock. Not replicated: a new controller knows no history, so a broker it has not heard from
 * yet counts as heard when the controller first asks, which gives every broker a whole session
 * time-out after a change of controller. Thread-safe (synchronized).
 */
final class BrokerLiveness {
    private final Map<Integer, Long> lastHeard = new HashMap<>();

    synchronized void heard(int brokerId, long nowMs) {
        lastHeard.put(brokerId, nowMs);
    }

    synchronized void forget(int brokerId) {
        lastHeard.remove(brokerId);
    }

    /** Whether the broker was heard within the session time-out before {@code nowMs}. */
    synchronized boolean alive(int brokerId, long nowMs, long sessionTimeoutMs) {
        long last = lastHeard.computeIfAbsent(brokerId, id -> nowMs);
        return nowMs - last <= sessionTimeoutMs;
    }

    /** Milliseconds since the broker was last heard (0 if never by this controller). */
    synchronized long sinceHeard(int brokerId, long nowMs) {
        Long last = lastHeard.get(brokerId);
        return last == null ? 0 : nowMs - last;
    }
}
