package io.brook.server.config;

import java.util.Locale;
import java.util.Set;

/**
 * The connection limits Kafka lets one listener have of its own: {@code listener.name.<l>.max.connections}
 * and {@code listener.name.<l>.max.connection.creation.rate}, set in the properties file or at
 * run time (for one broker or as the cluster default, as their broker-wide forms). Names only;
 * the limits themselves are applied by the listeners' accept path.
 */
public final class ListenerLimitKeys {

    /** The keys that may follow a listener prefix here. */
    private static final Set<String> BASES = Set.of(BrokerConfig.MAX_CONNECTIONS, BrokerConfig.MAX_CONNECTION_CREATION_RATE);

    private ListenerLimitKeys() {
    }

    /** The listener (lower case) a listener connection-limit key is for, or null when {@code name} is none. */
    public static String listener(String name) {
        String listener = ListenerTlsKeys.listenerOf(name, base -> BASES.contains(base.toLowerCase(Locale.ROOT)));
        return listener == null ? null : listener.toLowerCase(Locale.ROOT);
    }

    /** The key without its listener prefix; only for names {@link #listener} accepts. */
    public static String base(String name) {
        return name.substring(name.indexOf('.', "listener.name.".length()) + 1).toLowerCase(Locale.ROOT);
    }

    /**
     * The limit a value sets: a whole number, at least {@code min} (0 in the properties file, as
     * Kafka's definition; 1 at run time, as Kafka's reconfiguration checks).
     *
     * @throws IllegalArgumentException in Kafka's words when it is not
     */
    public static int parse(String name, String value, int min) {
        String base = listener(name) != null ? base(name) : name;
        int n;
        try {
            n = Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Invalid value " + value + " for configuration " + name
                    + ": Not a number of type INT", e);
        }
        if (n < min) {
            throw new IllegalArgumentException(min > 0 ? "Invalid " + base + " " + n
                    : "Invalid value " + n + " for configuration " + name + ": Value must be at least " + min);
        }
        return n;
    }
}
