package io.brook.bench.runner;

/**
 * One launch of a broker for the TLS workloads ({@code bench/run --tls}): Brook's TLS engine
 * ({@code brook.ssl.engine}; null for the broker's default, which Kafka always uses) and whether
 * the listener is SASL_SSL with SCRAM-SHA-512 ({@code --sasl}) rather than SSL. The rows measured
 * on it carry its {@link #suffix}.
 */
record SecureListener(String engine, boolean sasl) {
    /** The report's line on the SASL_SSL rows. */
    static final String SASL_ROWS = "- rows \"over TLS, SASL/" + TlsSetup.SASL_MECHANISM + "\": the broker launched once"
            + " more with a SASL_SSL listener instead of the SSL one, " + TlsSetup.SASL_MECHANISM + " enabled and the"
            + " run's user created before it opened; every client connection (the producer's or consumer's to"
            + " bootstrap and to the broker, the warm-up's) logs in once\n";

    String suffix() {
        if (sasl) {
            return " over TLS, SASL/" + TlsSetup.SASL_MECHANISM;
        }
        return engine == null ? " over TLS" : " over TLS, " + engine + " engine";
    }

    String describe() {
        if (sasl) {
            return "launch with a SASL_SSL listener (" + TlsSetup.SASL_MECHANISM + ")";
        }
        return "launch with an SSL listener" + (engine == null ? "" : " (" + engine + " engine)");
    }
}
