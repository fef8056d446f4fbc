package io.brook.bench.runner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VerificationTest {

    @Test
    void shouldAcceptExactlyWhatWasAcknowledged() {
        assertThatCode(() -> Workloads.verify("t", new long[] {3, 0, 5}, new long[] {3, 0, 5})).doesNotThrowAnyException();
    }

    @Test
    void shouldNameEveryPartitionThatLostOrDuplicatedRecords() {
        assertThatThrownBy(() -> Workloads.verify("t", new long[] {3, 4, 5}, new long[] {3, 3, 6}))
                .isInstanceOf(VerificationException.class)
                .hasMessageContaining("t-1: acknowledged 4, read back 3")
                .hasMessageContaining("t-2: acknowledged 5, read back 6")
                .hasMessageNotContaining("t-0");
    }

    @Test
    void quickPlanShouldBeASmallSubsetOfTheFullMatrix() {
        Plan full = Plan.full();
        Plan quick = Plan.quick();
        assertThat(full.produce).hasSize(16);
        assertThat(full.consumeRecords).isGreaterThanOrEqualTo(10_000_000);
        assertThat(full.produce).containsAll(quick.produce);
        assertThat(quick.consumeRecords).isLessThan(full.consumeRecords);
        assertThat(quick.latencyDuration).isLessThan(full.latencyDuration);
        assertThat(new Plan.ProduceCell(8, 1024, "all", 256 * 1024).name())
                .isEqualTo("produce 8p 1KiB acks=all batch=256KiB");
    }

    @Test
    void shouldLaunchBrookTheWayUsersDo() {
        BrookBroker b = new BrookBroker("brook-nofsync", Path.of("/repo"), Path.of("/data"), Path.of("/log"),
                java.util.Map.of("brook.fsync.on.ack", "false"), "");
        assertThat(b.command(9999)).containsExactly("/repo/bin/brook", "--port", "9999", "--data-dir", "/data",
                "--override", "brook.fsync.on.ack=false");
    }

    @Test
    void shouldDrawThePngChart(@TempDir Path dir) throws Exception {
        Report report = new Report(List.of("brook", "kafka"), "kafka", List.of(
                Result.of("produce", "brook").put(Metric.MB_PER_S, 80).build(),
                Result.of("produce", "kafka").put(Metric.MB_PER_S, 60).build(),
                Result.of("latency 5,000 rec/s", "kafka").put(Metric.P99_MS, 3).build()));
        System.setProperty("java.awt.headless", "true");
        Path png = dir.resolve("chart.png");
        Chart.write(report, png);
        byte[] head = java.util.Arrays.copyOf(Files.readAllBytes(png), 8);
        assertThat(head).containsExactly(0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A);
    }
}
