package io.brook.server.config;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The TLS settings that may change at run time, as in Kafka ({@code SslConfigs.RECONFIGURABLE_CONFIGS}):
 * a listener's key and trust stores, changed only per listener ({@code listener.name.<l>.ssl.keystore.location})
 * and only for one broker, never in the cluster-wide default scope: a key store belongs to one
 * host. The other {@code ssl.*} settings (client authentication, protocols, cipher suites, the
 * engine) need a restart, as in Kafka.
 */
public final class ListenerTlsKeys {

    /** The reconfigurable TLS keys, without the listener prefix. */
    public static final Set<String> RECONFIGURABLE = Set.of(
            "ssl.keystore.type", "ssl.keystore.location", "ssl.keystore.password", "ssl.key.password",
            "ssl.keystore.key", "ssl.keystore.certificate.chain",
            "ssl.truststore.type", "ssl.truststore.location", "ssl.truststore.password", "ssl.truststore.certificates");

    private static final String PREFIX = "listener.name.";

    private ListenerTlsKeys() {
    }

    /** The listener (upper case, as Brook names listeners) a reconfigurable TLS key is for, or null when {@code name} is none. */
    public static String listener(String name) {
        String listener = listenerOf(name, RECONFIGURABLE::contains);
        return listener == null ? null : listener.toUpperCase(Locale.ROOT);
    }

    /**
     * The listener of {@code listener.name.<l>.<key>} as written, when {@code key} passes
     * {@code base}; else null.
     */
    static String listenerOf(String name, Predicate<String> base) {
        if (!name.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
            return null;
        }
        int dot = name.indexOf('.', PREFIX.length());
        if (dot <= PREFIX.length() || !base.test(name.substring(dot + 1))) {
            return null;
        }
        return name.substring(PREFIX.length(), dot);
    }

    /** The key without its listener prefix ({@code ssl.keystore.location}); only for names {@link #listener} accepts. */
    public static String base(String name) {
        return name.substring(name.indexOf('.', PREFIX.length()) + 1);
    }

    /** The entries of {@code settings} that are reconfigurable TLS keys of {@code listener}. */
    public static Map<String, String> of(Map<String, String> settings, String listener) {
        Map<String, String> out = new LinkedHashMap<>();
        settings.forEach((k, v) -> {
            if (listener.equalsIgnoreCase(listener(k))) {
                out.put(k, v);
            }
        });
        return out;
    }

    /** Whether {@code name} is a reconfigurable TLS key given without a listener prefix (which Kafka refuses). */
    public static boolean unprefixed(String name) {
        return RECONFIGURABLE.contains(name);
    }

    /**
     * Whether {@code name} (with or without a listener prefix) is one of these keys that holds a
     * secret (Kafka's PASSWORD type, {@link SecurityConfigKeys}): never shown.
     */
    public static boolean sensitive(String name) {
        String base = listener(name) != null ? base(name) : name;
        return RECONFIGURABLE.contains(base) && SecurityConfigKeys.type(base) == SecurityConfigKeys.Type.PASSWORD;
    }
}
