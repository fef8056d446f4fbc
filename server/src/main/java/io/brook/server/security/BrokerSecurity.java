package io.brook.server.security;

import io.brook.server.config.BrokerConfig;
import io.brook.server.config.Listener;
import io.brook.server.config.SecurityProtocol;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The broker's security as configured: each listener's {@link ListenerSecurity}, built and
 * checked at start-up. Immutable and thread-safe.
 */
public final class BrokerSecurity {

    private final Map<String, ListenerSecurity> listeners;

    private BrokerSecurity(Map<String, ListenerSecurity> listeners) {
        this.listeners = listeners;
    }

    /** Reads and checks the security settings of every listener of {@code config}. */
    public static BrokerSecurity create(BrokerConfig config) {
        Map<String, ListenerSecurity> out = new LinkedHashMap<>();
        for (Listener l : config.listeners().bound()) {
            out.put(l.name(), ListenerSecurity.create(l, config.listeners().protocol(l.name()),
                    config.securitySettings()));
        }
        return new BrokerSecurity(Collections.unmodifiableMap(out));
    }

    /** The state of a connection on a PLAINTEXT listener named PLAINTEXT (immutable: it may be shared). */
    public static Session plaintext() {
        return ListenerSecurity.create(new Listener("PLAINTEXT", "", 0), SecurityProtocol.PLAINTEXT, Map.of())
                .newSession();
    }

    /** The security of the listener named {@code name}. */
    public ListenerSecurity listener(String name) {
        ListenerSecurity l = listeners.get(name);
        if (l == null) {
            throw new IllegalArgumentException("no listener " + name);
        }
        return l;
    }
}
