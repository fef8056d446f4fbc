package io.brook.compat;

import io.brook.server.Brook;

/**
 * The broker under test: an embedded Brook, or an external Kafka-compatible cluster when
 * {@code -Dbootstrap.servers=host:port} is given (so the same tests can run against Apache Kafka).
 */
final class BrookCluster implements AutoCloseable {

    private final Brook brook;
    private final String bootstrap;

    BrookCluster() {
        this(java.util.Map.of());
    }

    /** With broker settings for the embedded Brook (an external cluster keeps its own). */
    BrookCluster(java.util.Map<String, String> brokerConfigs) {
        String external = System.getProperty("bootstrap.servers");
        if (external != null && !external.isBlank()) {
            brook = null;
            bootstrap = external;
        } else {
            brook = Brook.builder().port(0).config(brokerConfigs).start();
            bootstrap = brook.bootstrapServers();
        }
    }

    /** True when the broker is the embedded Brook (tests that restart it need that). */
    boolean embedded() {
        return brook != null;
    }

    String bootstrapServers() {
        return bootstrap;
    }

    /** A stock Admin client of this broker, with a 30 s default API time-out; the caller closes it. */
    org.apache.kafka.clients.admin.Admin admin() {
        java.util.Properties p = new java.util.Properties();
        p.put(org.apache.kafka.clients.admin.AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(org.apache.kafka.clients.admin.AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        return org.apache.kafka.clients.admin.Admin.create(p);
    }

    @Override
    public void close() {
        if (brook != null) {
            brook.close();
        }
    }
}
