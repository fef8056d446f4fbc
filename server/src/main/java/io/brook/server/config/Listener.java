package io.brook.server.config;

import java.util.Locale;
import java.util.Map;

/**
 * A listener as written in {@code listeners} / {@code advertised.listeners}:
 * {@code NAME://host:port}, IPv6 hosts in brackets. An empty host means every interface. The
 * name is the listener's name (upper-cased, as Kafka does), which
 * {@code listener.security.protocol.map} maps to its {@link SecurityProtocol}; see {@link Listeners}.
 */
public record Listener(String name, String host, int port) {

    /** {@code host:port} as a client's {@code bootstrap.servers} takes it (an IPv6 host in brackets). */
    public String hostPort() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }

    public static Listener parse(String key, String spec) {
        int sep = spec.indexOf("://");
        if (sep <= 0) {
            throw invalid(key, spec, "expected NAME://host:port, e.g. PLAINTEXT://127.0.0.1:9092");
        }
        String name = spec.substring(0, sep).toUpperCase(Locale.ROOT);
        String hostPort = spec.substring(sep + 3);
        int colon = hostPort.lastIndexOf(':');
        if (colon < 0) {
            throw invalid(key, spec, "missing port");
        }
        String host = hostPort.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(hostPort.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw invalid(key, spec, "port is not a number");
        }
        if (port < 0 || port > 65535) {
            throw invalid(key, spec, "port must be between 0 and 65535");
        }
        if (!name.matches("[A-Z0-9_]+")) {
            throw invalid(key, spec, "a listener name is made of letters, digits and '_'");
        }
        return new Listener(name, host, port);
    }

    /** Whether the host means every interface (not an address a client could be told to use). */
    public boolean wildcardHost() {
        return host.isEmpty() || host.equals("0.0.0.0") || host.equals("::");
    }

    public Listener withPort(int newPort) {
        return new Listener(name, host, newPort);
    }

    @Override
    public String toString() {
        String h = host.indexOf(':') >= 0 ? "[" + host + "]" : host;
        return name + "://" + h + ":" + port;
    }

    private static IllegalArgumentException invalid(String key, String spec, String why) {
        return new IllegalArgumentException("Invalid value '" + spec + "' for configuration " + key + ": " + why);
    }

    /**
     * The one PLAINTEXT listener of an embedded broker: on {@code port} (0, any free port, when
     * null) and on the host of the first of {@code listeners} (127.0.0.1 when null).
     */
    public static Listener embedded(String listeners, Integer port) {
        String host = listeners == null ? "127.0.0.1"
                : BrokerConfig.parse(Map.of(BrokerConfig.LISTENERS, listeners)).listener().host();
        return new Listener("PLAINTEXT", host, port != null ? port : 0);
    }
}
