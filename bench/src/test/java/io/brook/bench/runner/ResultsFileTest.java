package io.brook.bench.runner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResultsFileTest {
    @TempDir
    Path tmp;

    @Test
    void shouldReadBackWhatWasWrittenInOrderWithFailures() throws IOException {
        List<Result> written = List.of(
                Result.of("start-up", "brook").put(Metric.STARTUP_MS, 412).put(Metric.PEAK_RSS_MIB, 88.5).build(),
                Result.failed("produce 1p", "brook", "timed out\tafter\n120 s"),
                Result.of("consume", "brook").throughput(10, 1_000_000_000L, 2.5, 0.3)
                        .put(Metric.CLIENT_CPU_S, 2.1).build());
        Path file = tmp.resolve("r.tsv");
        ResultsFile.write(file, written);

        List<Result> read = ResultsFile.read(file);

        assertThat(read).extracting(r -> r.workload).containsExactly("start-up", "produce 1p", "consume");
        assertThat(read.get(0).values).isEqualTo(written.get(0).values);
        assertThat(read.get(1).failed()).isTrue();
        assertThat(read.get(1).failure).isEqualTo("timed out after 120 s");
        assertThat(read.get(2).values).isEqualTo(written.get(2).values);
        assertThat(read.get(2).broker).isEqualTo("brook");
    }

    @Test
    void shouldRejectALineThatIsNotAResult() throws IOException {
        Path file = tmp.resolve("r.tsv");
        Files.writeString(file, "start-up\tbrook\tNO_SUCH_METRIC\t1.0\n");
        assertThatThrownBy(() -> ResultsFile.read(file)).isInstanceOf(IOException.class)
                .hasMessageContaining("not a results line");
    }

    @Test
    void shouldTakeTheMiddleValueOrTheMeanOfTheTwoMiddleOnesAsTheMedian() {
        assertThat(BenchRunner.median(List.of(400L))).isEqualTo(400);
        assertThat(BenchRunner.median(List.of(900L, 200L, 300L))).isEqualTo(300);
        assertThat(BenchRunner.median(List.of(900L, 200L, 300L, 100L))).isEqualTo(250);
    }
}
