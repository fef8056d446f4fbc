package io.brook.server.security.quota;

import io.brook.server.config.BrokerConfig;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The broker's connection limits in force: {@code max.connections}, {@code max.connections.per.ip}
 * with {@code max.connections.per.ip.overrides}, and {@code max.connection.creation.rate}. Kafka
 * lets all four change at run time ({@code kafka-configs.sh --alter --entity-type brokers}, for
 * one broker or as the cluster default); a change applies to the connections accepted after it,
 * and those already open stay, as in Kafka. The listener's accept path reads {@link #current()}
 * once per new connection; {@link #reconfigure} replaces it whole. Thread-safe.
 */
public final class ConnectionLimits {

    /** The keys of this class, all of them changeable at run time. */
    public static final Set<String> KEYS = Set.of(BrokerConfig.MAX_CONNECTIONS, BrokerConfig.MAX_CONNECTIONS_PER_IP,
            BrokerConfig.MAX_CONNECTIONS_PER_IP_OVERRIDES, BrokerConfig.MAX_CONNECTION_CREATION_RATE);

    /**
     * One consistent set of limits. {@code maxConnectionsPerIp} and {@code creationRate} are
     * {@link Integer#MAX_VALUE} when unbounded.
     */
    public record Values(int maxConnections, int maxConnectionsPerIp, Map<InetAddress, Integer> perIpOverrides,
            int creationRate) {

        /** The most connections {@code address} may have open at once. */
        public int maxConnectionsFrom(InetAddress address) {
            return perIpOverrides.getOrDefault(address, maxConnectionsPerIp);
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
     * {@link #KEYS} ignored) over them; the dynamic ones were checked when they were set.
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
     * {@code max.connection.creation.rate} must be at least 1, every override must parse and name
     * a known host, and {@code max.connections.per.ip} may be 0 only with overrides.
     */
    public static String invalid(BrokerConfig config, Map<String, String> dynamic) {
        try {
            for (String key : List.of(BrokerConfig.MAX_CONNECTIONS, BrokerConfig.MAX_CONNECTION_CREATION_RATE)) {
                String v = dynamic.get(key);
                if (v != null && parseInt(key, v) <= 0) {
                    return "Invalid " + key + " " + v.trim();
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
        return new Values(max, perIp, overrides, intOf(config, dynamic, BrokerConfig.MAX_CONNECTION_CREATION_RATE));
    }

    private static int intOf(BrokerConfig config, Map<String, String> dynamic, String key) {
        String v = dynamic.get(key);
        return v == null ? config.intValue(key) : parseInt(key, v);
    }

    private static int parseInt(String key, String value) {
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Invalid value " + value + " for configuration " + key
                    + ": Not a number of type INT", e);
        }
    }
}
