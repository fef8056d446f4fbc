package io.brook.cluster.member;

import io.brook.cluster.metadata.Endpoint;
import java.util.List;

/**
 * What a broker registers with the controller and how it keeps its session: its advertised
 * listeners, its rack ({@code broker.rack}, null for none), {@code broker.heartbeat.interval.ms}
 * and {@code broker.session.timeout.ms} (Kafka's defaults 2000 and 9000). The session time-out is
 * the controller's setting in Kafka; here each voter's controller takes it from its own node's
 * registration, so every node of a cluster should use the same value.
 */
public record BrokerRegistration(List<Endpoint> listeners, String rack, long heartbeatIntervalMs,
                                 long sessionTimeoutMs) {

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

    /** A registration with Kafka's default heartbeat interval and session time-out. */
    public static BrokerRegistration of(List<Endpoint> listeners, String rack) {
        return new BrokerRegistration(listeners, rack, DEFAULT_HEARTBEAT_INTERVAL_MS, DEFAULT_SESSION_TIMEOUT_MS);
    }
}
