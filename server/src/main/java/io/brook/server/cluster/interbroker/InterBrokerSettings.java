package io.brook.server.cluster.interbroker;

/**
 * How the {@link InterBrokerClient} talks to other brokers.
 *
 * @param requestTimeoutMs    a request not answered within this is failed and its connection
 *                            closed, as Kafka's network client does with {@code request.timeout.ms}
 *                            (30 s by default); it covers the wait for a connection too
 * @param maxInFlight         requests sent to one node and not answered yet; more wait in order
 * @param maxQueued           requests waiting for one node (not sent yet); more are refused at once
 * @param reconnectBackoffMs  the first wait before connecting again after a failed or lost
 *                            connection (Kafka's {@code reconnect.backoff.ms}, 50 ms)
 * @param reconnectBackoffMaxMs the wait doubles up to this (Kafka's {@code reconnect.backoff.max.ms}, 1 s)
 * @param connectTimeoutMs    a connection not established within this failed
 */
public record InterBrokerSettings(int requestTimeoutMs, int maxInFlight, int maxQueued, long reconnectBackoffMs,
                                  long reconnectBackoffMaxMs, int connectTimeoutMs) {

    /** Kafka's defaults where it has them; 100 requests in flight per node, 10 000 queued. */
    public static final InterBrokerSettings DEFAULTS = new InterBrokerSettings(30_000, 100, 10_000, 50, 1_000, 10_000);

    public InterBrokerSettings {
        if (requestTimeoutMs < 1 || maxInFlight < 1 || maxQueued < 0 || reconnectBackoffMs < 1
                || reconnectBackoffMaxMs < reconnectBackoffMs || connectTimeoutMs < 1) {
            throw new IllegalArgumentException("invalid inter-broker settings " + this);
        }
    }

    public InterBrokerSettings withRequestTimeoutMs(int ms) {
        return new InterBrokerSettings(ms, maxInFlight, maxQueued, reconnectBackoffMs, reconnectBackoffMaxMs,
                connectTimeoutMs);
    }
}
