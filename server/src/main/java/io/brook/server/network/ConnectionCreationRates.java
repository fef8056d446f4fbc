package io.brook.server.network;

import io.brook.server.security.quota.ClientQuotas;
import io.brook.server.security.quota.ConnectionLimits;
import io.brook.server.security.quota.RateWindows;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka's connection creation quotas (ConnectionQuotas), measured on the client quotas' windows:
 *
 * <ul>
 * <li>per client address, the {@code connection_creation_rate} of its {@code ip} quota entity (or
 *     the default ip entity), set with {@code kafka-configs.sh --entity-type ips}: a connection
 *     over it is accepted, not read, and closed once the throttle time has passed (the client
 *     sees its connection fail and backs off), and it is not counted in any rate;
 * <li>over all listeners, {@code max.connection.creation.rate}, and per listener,
 *     {@code listener.name.<l>.max.connection.creation.rate} (both as in force now: they may
 *     change at run time, {@link ConnectionLimits}): when a new connection takes a rate over, it
 *     and the listener's next new connections are held unread for the longer of the two throttle
 *     times and served afterwards, as Kafka's acceptor waits that long before its next accept.
 * </ul>
 *
 * Throttle times are Kafka's, at most one quota window. With no quota set the cost per accepted
 * connection is a volatile read and a map lookup.
 */
final class ConnectionCreationRates {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectionCreationRates.class);

    private final ClientQuotas quotas;
    /** Where the rates are read: they may change at run time. */
    private final ConnectionLimits limits;
    private final RateWindows broker;
    /** Per listener (lower case) that has had a rate of its own: its windows. */
    private final Map<String, RateWindows> listeners = new ConcurrentHashMap<>();
    /** Per listener: until when its new connections are held (quota clock, ms). */
    private final Map<String, AtomicLong> pausedUntil = new ConcurrentHashMap<>();

    ConnectionCreationRates(ClientQuotas quotas, ConnectionLimits limits) {
        this.quotas = quotas;
        this.limits = limits;
        this.broker = quotas.newRate();
    }

    /**
     * Counts a new connection from {@code ip} against its address's quota: 0 when it is within it
     * (serve it), else how long to hold the connection before closing it (it is then not counted).
     */
    long ipThrottle(String ip) {
        int ms = quotas.connectionCreated(ip);
        if (ms > 0) {
            LOG.debug("Connection from {} over its connection_creation_rate: closing it in {} ms", ip, ms);
        }
        return ms;
    }

    /**
     * Counts a new connection on {@code listener} against the broker's and the listener's rates:
     * 0 when it may be served now, else how long to hold it unread first. While a listener is held
     * back, its new connections wait out the rest of that time and are counted when it ends.
     */
    long acceptDelay(String listener) {
        String key = listener == null ? "" : listener.toLowerCase(Locale.ROOT);
        ConnectionLimits.Values inForce = limits.current();
        int brokerRate = inForce.creationRate();
        Integer listenerRate = inForce.creationRateOn(key);
        if (brokerRate == Integer.MAX_VALUE && listenerRate == null) {
            return 0;
        }
        RateWindows l = listenerRate == null ? null : listeners.computeIfAbsent(key, k -> quotas.newRate());
        long now = quotas.nowMs();
        AtomicLong until = pausedUntil.computeIfAbsent(key, k -> new AtomicLong());
        long held = until.get() - now;
        if (held > 0) {
            return held;
        }
        long throttle = 0;
        if (brokerRate != Integer.MAX_VALUE) {
            throttle = record(broker, brokerRate, now);
        }
        if (l != null) {
            throttle = Math.max(throttle, record(l, listenerRate, now));
        }
        if (throttle > 0) {
            until.accumulateAndGet(now + throttle, Math::max);
            LOG.debug("Listener {} over its connection creation rate: holding new connections for {} ms", listener,
                    throttle);
        }
        return throttle;
    }

    private long record(RateWindows w, int bound, long now) {
        synchronized (w) {
            w.record(1, now);
            return Math.min(w.throttleMs(Math.max(bound, 0.001), now), quotas.windowMs());
        }
    }
}
