package io.brook.junit.figures;

import io.brook.server.Brook;

/** Brook started as the extension starts it (port 0, fault seams, a temporary data directory). */
final class BrookBrokers {
    private BrookBrokers() {
    }

    /** A broker with topic "t" that has acknowledged a first record, as in {@link BrookStartupCase}. */
    static AutoCloseable startWithTopic() throws Exception {
        Brook brook = Brook.builder().port(0).faults(true).start();
        brook.createTopic("t", 1);
        FirstProduce.produce(brook.bootstrapServers());
        return brook;
    }

    /** The bootstrap servers of a broker from {@link #startWithTopic()}. */
    static String bootstrapServers(AutoCloseable broker) {
        return ((Brook) broker).bootstrapServers();
    }
}
