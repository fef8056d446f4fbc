package io.brook.server.security.quota;

/**
 * The quota settings Kafka knows, by their names in AlterClientQuotas and
 * {@code kafka-configs.sh}, with the value type Kafka declares for each: the byte rates and the
 * connection rate are whole numbers, the others may be fractional.
 */
public enum QuotaKey {
    /** Bytes per second a user or client may produce (Kafka: LONG). */
    PRODUCER_BYTE_RATE("producer_byte_rate", true, Long.MAX_VALUE, false),
    /** Bytes per second a user or client may fetch (Kafka: LONG). */
    CONSUMER_BYTE_RATE("consumer_byte_rate", true, Long.MAX_VALUE, false),
    /** Percentage of one request handler thread a user or client may use (Kafka: DOUBLE). */
    REQUEST_PERCENTAGE("request_percentage", false, Double.MAX_VALUE, false),
    /** Partitions created, added or deleted per second (Kafka: DOUBLE), charged to a {@link TokenBucket}. */
    CONTROLLER_MUTATION_RATE("controller_mutation_rate", false, Double.MAX_VALUE, false),
    /** Connections per second from one IP address (Kafka: INT). */
    CONNECTION_CREATION_RATE("connection_creation_rate", true, Integer.MAX_VALUE, true);

    private final String key;
    private final boolean integral;
    private final double max;
    private final boolean ipOnly;

    QuotaKey(String key, boolean integral, double max, boolean ipOnly) {
        this.key = key;
        this.integral = integral;
        this.max = max;
        this.ipOnly = ipOnly;
    }

    public String key() {
        return key;
    }

    /** The key named {@code name}, or null. */
    public static QuotaKey of(String name) {
        for (QuotaKey k : values()) {
            if (k.key.equals(name)) {
                return k;
            }
        }
        return null;
    }

    /** Whether the key applies to an entity with an ip part (else to user and client-id entities). */
    public boolean forIp() {
        return ipOnly;
    }

    /** Kafka's complaint about {@code value} for this key, or null when it is acceptable. */
    public String problem(double value) {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            return "Quota " + key + " must be a finite number";
        }
        if (!(value > 0.0)) {
            return "Quota " + key + " must be greater than 0";
        }
        if (value > max) {
            return "Proposed value for " + key + " is too large for " + (max == Integer.MAX_VALUE ? "an INT." : "a LONG.");
        }
        if (integral && Math.abs(value % 1.0) > 1e-6) {
            return key + " cannot be a fractional value.";
        }
        return null;
    }
}
