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
        String external = System.getProperty("bootstrap.servers");
        if (external != null && !external.isBlank()) {
            brook = null;
            bootstrap = external;
        } else {
            brook = Brook.builder().port(0).start();
            bootstrap = brook.bootstrapServers();
        }
    }

    String bootstrapServers() {
        return bootstrap;
    }

    @Override
    public void close() {
        if (brook != null) {
            brook.close();
        }
    }
}
