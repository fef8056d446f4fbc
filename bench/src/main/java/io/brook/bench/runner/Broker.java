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
