package io.brook.server.config;

/** Kafka's security protocols: whether a listener encrypts (TLS) and whether it authenticates with SASL. */
public enum SecurityProtocol {
    PLAINTEXT(false, false),
    SSL(true, false),
    SASL_PLAINTEXT(false, true),
    SASL_SSL(true, true);

    private final boolean tls;
    private final boolean sasl;

    SecurityProtocol(boolean tls, boolean sasl) {
        this.tls = tls;
        this.sasl = sasl;
    }

    public boolean tls() {
        return tls;
    }

    public boolean sasl() {
        return sasl;
    }

    /** The protocol named {@code name} (case-insensitive), or null. */
    static SecurityProtocol byName(String name) {
        for (SecurityProtocol p : values()) {
            if (p.name().equalsIgnoreCase(name)) {
                return p;
            }
        }
        return null;
    }
}
