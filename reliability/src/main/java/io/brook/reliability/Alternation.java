package io.brook.reliability;

import java.time.Duration;
import java.util.List;

/**
 * The measuring producer's throughput with the pipelining load running and paused in turn, one
 * producer throughout: the windows alternate A B B A A B B A (A loaded), so a throughput that
 * drifts over the run (a fresh broker's first seconds write into free page cache; the unloaded
 * producer moves by ±30 % between 5-second windows on this kind of machine) weighs on both sides
 * alike. While paused, the idle connections and the consumers that never read stay open: the
 * pipelining clients are the load that costs the broker CPU.
 */
record Alternation(double loaded, double paused, long failures) {
    /** Loaded and paused windows of each kind; each lasts a quarter of the scenario's window. */
    private static final int ROUNDS = 4;

    static Alternation measure(String bootstrap, String topic, int partitions, Duration window,
            List<PipeliningClient> load) throws InterruptedException {
        Duration phase = window.dividedBy(ROUNDS);
        double loaded = 0;
        double paused = 0;
        long failures = 0;
        try (Throughput.Steady producer = new Throughput.Steady(bootstrap, topic, partitions)) {
            for (int i = 0; i < 2 * ROUNDS; i++) {
                boolean withLoad = i % 4 == 0 || i % 4 == 3; // A B B A, twice
                if (withLoad) {
                    load.forEach(PipeliningClient::resume);
                } else {
                    load.forEach(PipeliningClient::pause);
                }
                Throughput.Measurement m = producer.measure(phase);
                failures += m.failures();
                if (withLoad) {
                    loaded += m.recordsPerSecond() / ROUNDS;
                } else {
                    paused += m.recordsPerSecond() / ROUNDS;
                }
            }
        } finally {
            load.forEach(PipeliningClient::resume);
        }
        return new Alternation(loaded, paused, failures);
    }

    /** Under load ÷ paused. */
    double ratio() {
        return paused == 0 ? 0 : loaded / paused;
    }

    void report(ScenarioResult result) {
        result.figure("alternating windows: throughput with the pipelining load", loaded, "records/s");
        result.figure("alternating windows: throughput with it paused", paused, "records/s");
        result.figure("alternating windows: loaded ÷ paused", ratio() * 100, "%");
    }
}
