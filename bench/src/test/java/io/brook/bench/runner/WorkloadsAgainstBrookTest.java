package io.brook.bench.runner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.server.Brook;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The runner's workloads, small, against an embedded Brook: every measured figure is produced
 * and every read-back check passes — or fails when records are missing or extra. The broker runs
 * in this JVM, so the CPU figures are this JVM's; no timing is asserted.
 */
@Timeout(120)
class WorkloadsAgainstBrookTest {
    private static Brook brook;
    private static Workloads workloads;

    @BeforeAll
    static void start() {
        brook = Brook.builder().port(0).start();
        workloads = new Workloads(brook.bootstrapServers(), "brook", ProcessHandle.current().pid(),
                ProcFs.clockTicks(), new Progress(new PrintStream(OutputStream.nullOutputStream())),
                Duration.ofSeconds(2), java.util.Map.of(), java.util.Map.of());
    }

    @AfterAll
    static void stop() {
        if (workloads != null) {
            workloads.close();
        }
        if (brook != null) {
            brook.close();
        }
    }

    private static void assertThroughput(Result r, String workload) {
        assertThat(r.failed()).isFalse();
        assertThat(r.workload).isEqualTo(workload);
        assertThat(r.broker).isEqualTo("brook");
        assertThat(r.values.get(Metric.RECORDS_PER_S)).isPositive();
        assertThat(r.values.get(Metric.MB_PER_S)).isPositive();
        // the broker runs in this JVM, which does work in every phase: no phase measures zero CPU
        assertThat(r.values.get(Metric.BROKER_CPU_S)).isPositive();
        assertThat(r.values.get(Metric.BROKER_CPU_S_PER_GB)).isPositive();
    }

    @Test
    void shouldMeasureProduceAndReadEveryRecordBack() throws Exception {
        Plan.ProduceCell cell = new Plan.ProduceCell(2, 100, "all", 16 * 1024);
        Result r = workloads.produce(cell, 2_000);
        assertThroughput(r, "produce 2p 100B acks=all batch=16KiB");
        // measured after a sync; the embedded broker shares the runner's process, so only its presence is certain
        assertThat(r.values).containsKey(Metric.MACHINE_CPU_S_PER_GB);
    }

    @Test
    void shouldMeasureACatchUpConsumer() throws Exception {
        Result r = workloads.consume(5_000);
        assertThroughput(r, "consume 8p 100B (catch-up, assign)");
    }

    @Test
    void shouldMeasureConsumersReadingAtOnceAndCountEveryRecordOnce() throws Exception {
        // three consumers over eight partitions: shares of three, three and two; the read-back check inside
        // fails unless each partition's records were read exactly once in all
        Result r = workloads.consume(5_000, 3);
        assertThroughput(r, "consume 8p 100B (catch-up, assign, 3 consumers)");
    }

    @Test
    void shouldMeasureLatencyFromIntendedSendTimes() throws Exception {
        Result r = workloads.latency(2_000, Duration.ofSeconds(1), Duration.ofMillis(200));
        assertThroughput(r, "latency 2,000 rec/s 1p 100B acks=all");
        assertThat(r.values.get(Metric.P50_MS)).isPositive();
        assertThat(r.values.get(Metric.P99_MS)).isGreaterThanOrEqualTo(r.values.get(Metric.P50_MS));
        assertThat(r.values.get(Metric.P999_MS)).isGreaterThanOrEqualTo(r.values.get(Metric.P99_MS));
        assertThat(r.values.get(Metric.MAX_MS)).isGreaterThanOrEqualTo(r.values.get(Metric.P999_MS));
    }

    @Test
    void shouldMeasureCommittedTransactionsThroughAReadCommittedConsumer() throws Exception {
        Result r = TransactionalWorkload.run(workloads, "brook", ProcessHandle.current().pid(), ProcFs.clockTicks(),
                100, 20, Duration.ofSeconds(2));
        assertThroughput(r, TransactionalWorkload.name(100));
        assertThat(r.values.get(Metric.TRANSACTIONS_PER_S)).isPositive();
        assertThat(r.values.get(Metric.P50_MS)).isPositive();
        assertThat(r.values.get(Metric.MAX_MS)).isGreaterThanOrEqualTo(r.values.get(Metric.P99_MS));
    }

    @Test
    void shouldWriteManyPartitionsRoundRobin() throws Exception {
        assertThroughput(workloads.manyPartitions(20, 1_000), "many partitions: 20p round-robin 100B acks=all");
    }

    @Test
    void shouldFailLoudlyWhenARecordIsMissingOrExtra() throws Exception {
        long[] acked = workloads.fill("verify", 2, 200, 100);
        assertThat(acked[0] + acked[1]).isEqualTo(200);
        workloads.readBack("verify", acked);

        long[] oneMore = acked.clone();
        oneMore[1]++;
        assertThatThrownBy(() -> workloads.readBack("verify", oneMore))
                .isInstanceOf(VerificationException.class).hasMessageContaining("verify-1");
        long[] oneLess = acked.clone();
        oneLess[0]--;
        assertThatThrownBy(() -> workloads.readBack("verify", oneLess))
                .isInstanceOf(VerificationException.class).hasMessageContaining("verify-0");
    }
}
