package io.brook.cluster.member;

import io.brook.cluster.metadata.Endpoint;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * What a broker registers with the controller and how it keeps its session: its advertised
 * listeners, its rack ({@code broker.rack}, null for none), {@code broker.heartbeat.interval.ms}
 * and {@code broker.session.timeout.ms} (Kafka's defaults 2000 and 9000). The session time-out is
 * the controller's setting in Kafka; here each voter's controller takes it from its own node's
 * registration, so every node of a cluster should use the same value. The node's data directory
 * id (KIP-853's {@code directory.id}, null when it has none) is reported to the controller once
 * the broker is registered.
 */
public record BrokerRegistration(List<Endpoint> listeners, String rack, long heartbeatIntervalMs,
                                 long sessionTimeoutMs, UUID directoryId) {

    /** Kafka's default of broker.heartbeat.interval.ms. */
    public static final long DEFAULT_HEARTBEAT_INTERVAL_MS = 2000;
    /** Kafka's default of broker.session.timeout.ms. */
    public static final long DEFAULT_SESSION_TIMEOUT_MS = 9000;

    public BrokerRegistration {
        listeners = List.copyOf(listeners);
        if (heartbeatIntervalMs <= 0) {
            throw new IllegalArgumentException("broker.heartbeat.interval.ms must be positive: " + heartbeatIntervalMs);
        }
        if (sessionTimeoutMs <= heartbeatIntervalMs) {
            throw new IllegalArgumentException("broker.session.timeout.ms (" + sessionTimeoutMs
                    + ") must be longer than broker.heartbeat.interval.ms (" + heartbeatIntervalMs + ")");
        }
    }

    /** A registration without a directory id. */
    public BrokerRegistration(List<Endpoint> listeners, String rack, long heartbeatIntervalMs, long sessionTimeoutMs) {
        this(listeners, rack, heartbeatIntervalMs, sessionTimeoutMs, null);
    }

    public static final String BROKER_RACK = "broker.rack";
    public static final String BROKER_HEARTBEAT_INTERVAL_MS = "broker.heartbeat.interval.ms";
    public static final String BROKER_SESSION_TIMEOUT_MS = "broker.session.timeout.ms";

    /**
     * Reads {@code broker.rack}, {@code broker.heartbeat.interval.ms} and {@code
     * broker.session.timeout.ms} (Kafka's names and defaults) from a node's properties; the
     * listeners are the broker's advertised ones, which the caller resolves.
     */
    public static BrokerRegistration fromProperties(Map<String, String> props, List<Endpoint> listeners) {
        String rack = props.get(BROKER_RACK);
        return new BrokerRegistration(listeners, rack == null || rack.isBlank() ? null : rack.trim(),
                millis(props, BROKER_HEARTBEAT_INTERVAL_MS, DEFAULT_HEARTBEAT_INTERVAL_MS),
                millis(props, BROKER_SESSION_TIMEOUT_MS, DEFAULT_SESSION_TIMEOUT_MS));
    }

    private static long millis(Map<String, String> props, String key, long defaultValue) {
        String v = props.get(key);
        if (v == null || v.isBlank()) {
            return defaultValue;
        }
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + ": '" + v + "' is not a number of milliseconds", e);
        }
    }

    /** A registration with Kafka's default heartbeat interval and session time-out. */
    public static BrokerRegistration of(List<Endpoint> listeners, String rack) {
        return new BrokerRegistration(listeners, rack, DEFAULT_HEARTBEAT_INTERVAL_MS, DEFAULT_SESSION_TIMEOUT_MS);
    }
}
