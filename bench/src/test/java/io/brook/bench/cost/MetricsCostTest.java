package io.brook.bench.cost;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The metrics-cost harness runs every workload against its two embedded brokers (each request's
 * answer checked) and reports a row of figures for each. Its rounds are too short to mean
 * anything: no figure's size is asserted.
 */
class MetricsCostTest {

    @Test
    @Timeout(120)
    void shouldReportEveryWorkloadInAQuickRun() throws Exception {
        String report = MetricsCost.run(MetricsCost.Options.parse("--quick", "--round-ms", "20", "--warmup-ms", "0"),
                new PrintStream(OutputStream.nullOutputStream()));

        List<String> rows = Arrays.stream(report.split("\n")).filter(l -> l.startsWith("| produce") || l.startsWith("| fetch"))
                .toList();
        assertThat(rows).hasSize(MetricsCost.workloads().size());
        for (int i = 0; i < rows.size(); i++) {
            String[] cells = rows.get(i).split("\\|");
            assertThat(cells[1].trim()).isEqualTo(MetricsCost.workloads().get(i).name);
            assertThat(cells[2].trim()).isEqualTo("3");
            // broker CPU per request, off and on: the brokers did work for every request
            assertThat(Double.parseDouble(cells[3].trim())).isPositive();
            assertThat(Double.parseDouble(cells[4].trim())).isPositive();
            assertThat(cells[5]).contains("%");
        }
    }

    @Test
    void shouldRunOnlyTheWorkloadsNamed() throws Exception {
        String report = MetricsCost.run(MetricsCost.Options.parse("--quick", "--round-ms", "10", "--warmup-ms", "0",
                "--pairs", "1", "--only", "fetch 64"), new PrintStream(OutputStream.nullOutputStream()));

        assertThat(report).contains("| fetch 64 KiB | 1 |").doesNotContain("| produce").doesNotContain("| fetch 1 MiB");
    }
}
