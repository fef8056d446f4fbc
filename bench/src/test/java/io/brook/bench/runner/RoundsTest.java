package io.brook.bench.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class RoundsTest {
    private static final String PRODUCE = "produce 1p 1KiB acks=1 batch=256KiB over TLS";

    private static Result produce(String broker, double recordsPerSecond, double cpuPerGb) {
        return Result.of(PRODUCE, broker).put(Metric.RECORDS_PER_S, recordsPerSecond)
                .put(Metric.BROKER_CPU_S_PER_GB, cpuPerGb).build();
    }

    @Test
    void eachFigureIsTheMedianOfItsRoundsSoThatOneOutlierDoesNotDecideARatio() {
        List<Result> merged = Rounds.medians(List.of(
                List.of(produce("brook", 380_000, 2.1), produce("kafka", 220_000, 3.9)),
                List.of(produce("brook", 300_000, 2.9), produce("kafka", 160_000, 6.2)),
                List.of(produce("brook", 370_000, 2.0), produce("kafka", 280_000, 3.1))));

        assertThat(merged).extracting(r -> r.broker).containsExactly("brook", "kafka");
        assertThat(merged.get(0).values.get(Metric.RECORDS_PER_S)).isEqualTo(370_000.0);
        assertThat(merged.get(0).values.get(Metric.BROKER_CPU_S_PER_GB)).isEqualTo(2.1);
        assertThat(merged.get(1).values.get(Metric.RECORDS_PER_S)).isEqualTo(220_000.0);
        assertThat(merged.get(1).values.get(Metric.BROKER_CPU_S_PER_GB)).isEqualTo(3.9);
        Report report = new Report(List.of("brook", "kafka"), "kafka", merged);
        assertThat(report.markdown()).contains("| " + PRODUCE + " | broker CPU s/GB | 2.10 | 3.90 | 0.54× |");
    }

    @Test
    void anEvenNumberOfRoundsTakesTheMeanOfTheMiddleTwo() {
        assertThat(Rounds.median(List.of(4.0, 1.0, 3.0, 2.0))).isEqualTo(2.5);
        assertThat(Rounds.median(List.of(7.0))).isEqualTo(7.0);
    }

    @Test
    void aFigureMissingFromARoundIsTheMedianOfTheRoundsThatHaveIt() {
        List<Result> merged = Rounds.medians(List.of(
                List.of(Result.of("whole run", "brook").put(Metric.PEAK_RSS_MIB, 100).build()),
                List.of(Result.of("whole run", "brook").put(Metric.PEAK_RSS_MIB, 110)
                        .put(Metric.STARTUP_MS, 500).build())));
        assertThat(merged).singleElement().satisfies(r -> {
            assertThat(r.values.get(Metric.PEAK_RSS_MIB)).isEqualTo(105.0);
            assertThat(r.values.get(Metric.STARTUP_MS)).isEqualTo(500.0);
        });
    }

    @Test
    void aWorkloadThatFailedInAnyRoundIsReportedFailedWithItsRound() {
        List<Result> merged = Rounds.medians(List.of(
                List.of(produce("brook", 380_000, 2.1)),
                List.of(Result.failed(PRODUCE, "brook", "read back 1,999,999 of 2,000,000 records")),
                List.of(produce("brook", 370_000, 2.0))));
        assertThat(merged).singleElement().satisfies(r -> {
            assertThat(r.failed()).isTrue();
            assertThat(r.failure).isEqualTo("round 2 of 3: read back 1,999,999 of 2,000,000 records");
        });
    }
}
