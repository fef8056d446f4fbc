package io.brook.reliability;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Well-behaved clients that run beside an attack and must not notice it: an idempotent acks=all
 * producer that sends each record once the previous one is acknowledged, and a consumer-group
 * member that commits after each poll, on a topic of their own.
 * Their errors, their longest pause between two acknowledgements or commits, and a read-back of
 * everything acknowledged become the scenario's checks.
 */
final class GoodClients {
    static final String NO_ERRORS = "well-behaved clients saw no errors";
    static final String PROGRESS = "well-behaved clients kept making progress";
    static final String DATA = "well-behaved clients' acknowledged records all read back";

    private final String bootstrap;
    private final Map<String, String> security;
    private final String topic;
    private final AckLedger ledger;
    private final IdProducers producers;
    private final CommittingConsumers consumers;

    GoodClients(String bootstrap, String topic, int partitions, String group) {
        this(bootstrap, Map.of(), topic, partitions, group);
    }

    /** Clients that connect with the client settings {@code security} ({@link Clients}), a login for example. */
    GoodClients(String bootstrap, Map<String, String> security, String topic, int partitions, String group) {
        this.bootstrap = bootstrap;
        this.security = Map.copyOf(security);
        this.topic = topic;
        this.ledger = new AckLedger(1, partitions);
        this.producers = new IdProducers(bootstrap, security, topic, ledger, 200, 1);
        this.consumers = new CommittingConsumers(bootstrap, security, topic, List.of(group), 1);
    }

    /** Starts both and waits until each made its first acknowledgement and commit. */
    GoodClients start(Duration timeout) {
        producers.start();
        consumers.start();
        io.brook.testkit.Await.until("the well-behaved clients' first acknowledgement and commit", timeout,
                () -> ledger.ackedCount() > 0 && consumers.commits() > 0);
        producers.pauses().reset();
        consumers.pauses().reset();
        return this;
    }

    long acked() {
        return ledger.ackedCount();
    }

    long commits() {
        return consumers.commits();
    }

    /** Stops them and adds the checks: no errors, no pause longer than {@code maxGap}, nothing lost. */
    void finish(ScenarioResult result, Duration maxGap) throws InterruptedException {
        long ackGap = producers.pauses().longestNanos();
        long commitGap = consumers.pauses().longestNanos();
        producers.stop(Duration.ofSeconds(30));
        long acked = ledger.ackedCount();
        boolean caughtUp = Waits.holds(Duration.ofSeconds(30), () -> consumers.consumed() >= acked);
        consumers.stop();
        result.figure("well-behaved producer: records acknowledged", acked, "");
        result.figure("well-behaved consumer: records consumed", consumers.consumed(), "");
        result.figure("well-behaved consumer: commits", consumers.commits(), "");
        result.figure("longest pause between two acknowledgements", ackGap / 1e6, "ms");
        result.figure("longest pause between two commits", commitGap / 1e6, "ms");
        boolean clean = producers.failures().isEmpty() && consumers.failures().isEmpty() && producers.replaced() == 0;
        result.check(NO_ERRORS, clean, clean ? "no failed send, poll or commit"
                : "failed sends " + producers.failures() + ", failed polls/commits " + consumers.failures());
        boolean progressed = ackGap <= maxGap.toNanos() && commitGap <= maxGap.toNanos() && caughtUp;
        result.check(PROGRESS, progressed, "longest pause " + Math.round(Math.max(ackGap, commitGap) / 1e6) + " ms (limit "
                + maxGap.toMillis() + " ms); the consumer " + (caughtUp ? "caught up" : "did NOT catch up within 30 s"));
        ReadBack.Verification v = ReadBack.verify(bootstrap, security, topic, ledger, Duration.ofSeconds(60));
        result.check(DATA, v.ok(), v.summary());
    }
}
