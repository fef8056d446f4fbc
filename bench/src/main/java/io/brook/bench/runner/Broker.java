package io.brook.bench.runner;

import java.io.IOException;

/**
 * A broker the runner measures, started in a process of its own exactly as its users start it.
 * {@link #launch} returns at once, before the broker listens; readiness is what the start-up
 * workload measures.
 */
interface Broker {

    /** Short label used in the tables, e.g. {@code brook} or {@code kafka}. */
    String label();

    /** How this broker is configured, for the report. */
    String settings();

    /** Starts the broker on 127.0.0.1:port. */
    Running launch(int port) throws IOException;

    /**
     * Starts the broker with a PLAINTEXT listener on 127.0.0.1:port (for the runner's admin
     * client and the start-up probe) and an SSL listener on 127.0.0.1:tlsPort with {@code tls}'s
     * key. {@code engine} is Brook's {@code brook.ssl.engine}, or null for the broker's default
     * (Kafka has one engine, the JDK's, and ignores it). With {@code sasl} the listener is SASL_SSL
     * with SCRAM-SHA-512 and {@link TlsSetup#SASL_USER} exists before it opens.
     */
    Running launchTls(int port, int tlsPort, TlsSetup tls, String engine, boolean sasl) throws IOException;

    /** Deletes what the broker wrote; called after every broker was measured, so that it times no one. */
    void deleteData();

    /** A launched broker. Closing stops it (SIGTERM, then SIGKILL if it does not exit). */
    interface Running extends AutoCloseable {

        /** The broker JVM's process id (the source of CPU time and peak RSS). Waits for it if needed. */
        long pid() throws IOException, InterruptedException;

        /** False once the broker (or its launcher) has failed. */
        boolean alive();

        String bootstrap();

        @Override
        void close();
    }
}
