package io.brook.server.security;

import java.util.Locale;
import java.util.Map;

/**
 * The security settings as one listener sees them, with Kafka's precedence: for a SASL
 * mechanism's setting {@code listener.name.<listener>.<mechanism>.<key>}, then
 * {@code listener.name.<listener>.<key>}, then the broker-wide {@code <key>}. Listener and
 * mechanism prefixes are lower case in Kafka ({@code listener.name.sasl_ssl.scram-sha-256.});
 * they are matched here without regard to case.
 */
final class ListenerSettings {

    private final Map<String, String> raw;
    private final String prefix;

    ListenerSettings(Map<String, String> raw, String listenerName) {
        this.raw = raw;
        this.prefix = "listener.name." + listenerName.toLowerCase(Locale.ROOT) + ".";
    }

    /** The value of {@code key} for this listener, or null. */
    String get(String key) {
        String v = lookup(prefix + key);
        return v != null ? v : raw.get(key);
    }

    /** The value of {@code listener.name.<listener>.<key>} alone (no broker-wide fallback), or null. */
    String listenerOnly(String key) {
        return lookup(prefix + key);
    }

    /** The value of {@code key} for {@code mechanism} on this listener, or null. */
    String get(String mechanism, String key) {
        String v = lookup(prefix + mechanism.toLowerCase(Locale.ROOT) + "." + key);
        return v != null ? v : get(key);
    }

    String getOrDefault(String key, String defaultValue) {
        String v = get(key);
        return v == null || v.isBlank() ? defaultValue : v.trim();
    }

    /** Which setting {@link #get(String)} took {@code key} from (for messages). */
    String source(String key) {
        return lookup(prefix + key) != null ? prefix + key : key;
    }

    /** Which setting {@link #get(String, String)} took {@code key} of {@code mechanism} from (for messages). */
    String source(String mechanism, String key) {
        String own = prefix + mechanism.toLowerCase(Locale.ROOT) + "." + key;
        return lookup(own) != null ? own : source(key);
    }

    private String lookup(String name) {
        String v = raw.get(name);
        if (v != null) {
            return v;
        }
        for (Map.Entry<String, String> e : raw.entrySet()) {
            if (e.getKey().equalsIgnoreCase(name)) {
                return e.getValue();
            }
        }
        return null;
    }
}
