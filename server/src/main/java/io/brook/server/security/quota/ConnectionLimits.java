package io.brook.server.security.quota;

import io.brook.server.config.BrokerConfig;
import io.brook.server.config.ListenerLimitKeys;
import java.net.InetAddress;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The broker's connection limits in force: {@code max.connections}, {@code max.connections.per.ip}
 * with {@code max.connections.per.ip.overrides}, {@code max.connection.creation.rate}, and a
 * listener's own {@code listener.name.<l>.max.connections} and
 * {@code listener.name.<l>.max.connection.creation.rate}. Kafka lets all of them change at run
 * time ({@code kafka-configs.sh --alter --entity-type brokers}, for one broker or as the cluster
 * default); a change applies to the connections accepted after it, and those already open stay,
 * as in Kafka. The listeners' accept path reads {@link #current()} once per new connection;
 * {@link #reconfigure} replaces it whole. Thread-safe.
 */
public final class ConnectionLimits {

    /**
     * One consistent set of limits. {@code maxConnectionsPerIp} and {@code creationRate} are
     * {@link Integer#MAX_VALUE} when unbounded; the listener maps are keyed by the listener's
     * name in lower case and hold only the listeners that have a limit of their own.
     */
    public record Values(int maxConnections, int maxConnectionsPerIp, Map<InetAddress, Integer> perIpOverrides,
            int creationRate, Map<String, Integer> listenerMaxConnections, Map<String, Integer> listenerCreationRates) {

        /** The most connections {@code address} may have open at once. */
        public int maxConnectionsFrom(InetAddress address) {
            return perIpOverrides.getOrDefault(address, maxConnectionsPerIp);
        }

        /** The most connections {@code listener} may have open at once (its own limit; unbounded without one). */
        public int maxConnectionsOn(String listener) {
            return listener == null ? Integer.MAX_VALUE
                    : listenerMaxConnections.getOrDefault(listener.toLowerCase(Locale.ROOT), Integer.MAX_VALUE);
        }

        /** {@code listener}'s own connection creation rate, or null when it has none. */
        public Integer creationRateOn(String listener) {
            return listener == null ? null : listenerCreationRates.get(listener.toLowerCase(Locale.ROOT));
        }
    }

    private final BrokerConfig config;
    private volatile Values current;

    private ConnectionLimits(BrokerConfig config, Values current) {
        this.config = config;
        this.current = current;
    }

    /**
     * The limits of {@code config} with the run-time settings {@code dynamic} (keys other than
     * these limits ignored) over them.
     *
     * @throws IllegalArgumentException when a limit of the properties file is not valid
     */
    public static ConnectionLimits of(BrokerConfig config, Map<String, String> dynamic) {
        return new ConnectionLimits(config, values(config, dynamic));
    }

    /** What is in force now. */
    public Values current() {
        return current;
    }

    /** From now on, the configured limits with {@code dynamic} (checked with {@link #invalid}) over them. */
    public void reconfigure(Map<String, String> dynamic) {
        current = values(config, dynamic);
    }

    /**
     * Null when the run-time settings {@code dynamic} give valid limits over {@code config}, else
     * why not, in Kafka's words: at run time {@code max.connections} and
     * {@code max.connection.creation.rate} must be at least 1 (a listener's own are checked key by
     * key, {@code DynamicBrokerConfig.invalid}), every override must parse and name a known host,
     * and {@code max.connections.per.ip} may be 0 only with overrides.
     */
    public static String invalid(BrokerConfig config, Map<String, String> dynamic) {
        try {
            for (String key : List.of(BrokerConfig.MAX_CONNECTIONS, BrokerConfig.MAX_CONNECTION_CREATION_RATE)) {
                String v = dynamic.get(key);
                if (v != null) {
                    ListenerLimitKeys.parse(key, v, 1);
                }
            }
            values(config, dynamic);
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    private static Values values(BrokerConfig config, Map<String, String> dynamic) {
        int max = intOf(config, dynamic, BrokerConfig.MAX_CONNECTIONS);
        int perIp = intOf(config, dynamic, BrokerConfig.MAX_CONNECTIONS_PER_IP);
        Map<InetAddress, Integer> overrides = dynamic.containsKey(BrokerConfig.MAX_CONNECTIONS_PER_IP_OVERRIDES)
                ? BrokerConfig.connectionOverrides(dynamic.get(BrokerConfig.MAX_CONNECTIONS_PER_IP_OVERRIDES))
                : config.maxConnectionsPerIpOverrides();
        if (perIp == 0 && overrides.isEmpty()) {
            throw new IllegalArgumentException("Invalid value '0' for configuration " + BrokerConfig.MAX_CONNECTIONS_PER_IP
                    + ": can be 0 only if " + BrokerConfig.MAX_CONNECTIONS_PER_IP_OVERRIDES + " is set");
        }
        Map<String, Integer> listenerMax = new HashMap<>();
        Map<String, Integer> listenerRates = new HashMap<>();
        // the properties file's, then those set at run time over them
        for (Map<String, String> source : List.of(config.securitySettings(), dynamic)) {
            for (Map.Entry<String, String> e : source.entrySet()) {
                String listener = ListenerLimitKeys.listener(e.getKey());
                if (listener != null) {
                    int limit = ListenerLimitKeys.parse(e.getKey(), e.getValue(), 0);
                    (ListenerLimitKeys.base(e.getKey()).equals(BrokerConfig.MAX_CONNECTIONS) ? listenerMax : listenerRates)
                            .put(listener, limit);
                }
            }
        }
        return new Values(max, perIp, overrides, intOf(config, dynamic, BrokerConfig.MAX_CONNECTION_CREATION_RATE),
                Collections.unmodifiableMap(listenerMax), Collections.unmodifiableMap(listenerRates));
    }

    private static int intOf(BrokerConfig config, Map<String, String> dynamic, String key) {
        String v = dynamic.get(key);
        return v == null ? config.intValue(key) : ListenerLimitKeys.parse(key, v, 0);
    }
}
