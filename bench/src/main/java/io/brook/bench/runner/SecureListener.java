package io.brook.bench.runner;

/**
 * One launch of a broker for the TLS workloads ({@code bench/run --tls}): Brook's TLS engine
 * ({@code brook.ssl.engine}; null for the broker's default, which Kafka always uses) and whether
 * the listener is SASL_SSL with SCRAM-SHA-512 ({@code --sasl}) rather than SSL. The rows measured
 * on it carry its {@link #suffix}.
 */
record SecureListener(String engine, boolean sasl) {
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
