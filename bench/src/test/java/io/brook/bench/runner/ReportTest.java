package io.brook.bench.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ReportTest {
    private static final String PRODUCE = "produce 8p 1KiB acks=all batch=256KiB";

    private static Report sample() {
        return new Report(List.of("brook", "brook-nofsync", "kafka"), "kafka", List.of(
                Result.of(PRODUCE, "brook").throughput(1_000_000, 1_024_000_000, 10, 4).build(),
                Result.of(PRODUCE, "kafka").throughput(1_000_000, 1_024_000_000, 20, 8).build(),
                Result.failed(PRODUCE, "brook-nofsync", "produce failed: broken pipe"),
                Result.of("latency 5,000 rec/s", "brook").put(Metric.P99_MS, 2.0).build(),
                Result.of("latency 5,000 rec/s", "kafka").put(Metric.P99_MS, 8.0).build()));
    }

    @Test
    void shouldDeriveThroughputAndCpuPerGigabyteFromOnePhase() {
        Result r = Result.of("w", "b").throughput(1_000, 2_000_000_000L, 4.0, 3.0).build();
        assertThat(r.values.get(Metric.RECORDS_PER_S)).isEqualTo(250.0);
        assertThat(r.values.get(Metric.MB_PER_S)).isEqualTo(500.0);
        assertThat(r.values.get(Metric.BROKER_CPU_S)).isEqualTo(3.0);
        assertThat(r.values.get(Metric.BROKER_CPU_S_PER_GB)).isEqualTo(1.5);
    }

    @Test
    void shouldPutEveryBrokerAndItsRatioToKafkaInTheMarkdownTable() {
        String md = sample().markdown();
        assertThat(md.lines().findFirst().orElseThrow())
                .isEqualTo("| workload | figure | brook | brook-nofsync | kafka | brook / kafka | brook-nofsync / kafka |");
        assertThat(md).contains("| " + PRODUCE + " | records/s | 100,000 | FAILED | 50,000 | 2.00× | – |");
        assertThat(md).contains("| " + PRODUCE + " | broker CPU s/GB | 3.91 | FAILED | 7.81 | 0.50× | – |");
        assertThat(md).contains("| latency 5,000 rec/s | p99 ms | 2.00 | – | 8.00 | 0.25× | – |");
        assertThat(md).contains("- FAILED: brook-nofsync, " + PRODUCE + ": produce failed: broken pipe");
        assertThat(sample().failures()).hasSize(1);
    }

    @Test
    void shouldWritePlainNumbersAndRatiosToTheCsv() {
        List<String> lines = sample().csv().lines().toList();
        assertThat(lines.get(0)).isEqualTo("workload,figure,unit,brook,brook-nofsync,kafka,brook/kafka,brook-nofsync/kafka");
        assertThat(lines).contains(PRODUCE + ",records_per_s,records/s,100000,FAILED,50000,2.0000,");
        assertThat(lines).contains("\"latency 5,000 rec/s\",p99_ms,p99 ms,2,,8,0.2500,");
    }

    @Test
    void shouldLeaveOutRatiosWithoutTheReferenceBroker() {
        Report onlyKafka = new Report(List.of("kafka"), "kafka",
                List.of(Result.of(PRODUCE, "kafka").put(Metric.MB_PER_S, 12.5).build()));
        assertThat(onlyKafka.markdown()).startsWith("| workload | figure | kafka |\n")
                .contains("| " + PRODUCE + " | MB/s | 12.5 |");
        Report onlyBrook = new Report(List.of("brook"), "kafka",
                List.of(Result.of(PRODUCE, "brook").put(Metric.MB_PER_S, 12.5).build()));
        assertThat(onlyBrook.csv().lines().findFirst().orElseThrow()).isEqualTo("workload,figure,unit,brook");
    }
}
