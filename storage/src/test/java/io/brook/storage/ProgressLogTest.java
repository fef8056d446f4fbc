package io.brook.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class ProgressLogTest {

    @TempDir
    Path tmp;

    private final AtomicLong nanos = new AtomicLong(1_000);
    private final List<String> lines = new ArrayList<>();

    private void advanceSeconds(long s) {
        nanos.addAndGet(TimeUnit.SECONDS.toNanos(s));
    }

    @Test
    void shouldWriteAtMostOneLinePerIntervalAndALastOne() {
        ProgressLog p = new ProgressLog("Recovering logs in /data", "Recovered logs in /data", "logs", 4,
                ProgressLog.Unit.BYTES, nanos::get, 10_000, lines::add);
        p.advance(1, 1024);
        advanceSeconds(5);
        p.advance(1, 1024);
        assertThat(lines).isEmpty(); // within the first interval: quiet

        advanceSeconds(5);
        p.advance(1, 20L * 1024 * 1024 - 2048);
        p.advance(0, 0); // many calls, one line per interval
        advanceSeconds(9);
        p.advance(0, 0);
        assertThat(lines).containsExactly("Recovering logs in /data: 3/4 logs, 20.0 MiB (2.0 MiB/s), 10 s");

        advanceSeconds(1);
        p.advance(1, 0);
        p.finish();
        assertThat(lines).containsExactly(
                "Recovering logs in /data: 3/4 logs, 20.0 MiB (2.0 MiB/s), 10 s",
                "Recovering logs in /data: 4/4 logs, 20.0 MiB (1.0 MiB/s), 20 s",
                "Recovered logs in /data: 4/4 logs, 20.0 MiB (1.0 MiB/s), 20 s");
    }

    @Test
    void shouldCountRecordsForACoordinatorLoad() {
        ProgressLog p = new ProgressLog("Loading __consumer_offsets", "Loaded __consumer_offsets", "partitions", 50,
                ProgressLog.Unit.RECORDS, nanos::get, 10_000, lines::add);
        advanceSeconds(10);
        p.advance(12, 400_000);
        assertThat(lines).containsExactly("Loading __consumer_offsets: 12/50 partitions, 400000 records (40000 records/s), 10 s");
    }

    @Test
    void shouldPrintBinaryUnits() {
        assertThat(ProgressLog.bytes(512)).isEqualTo("512 B");
        assertThat(ProgressLog.bytes(1536)).isEqualTo("1.5 KiB");
        assertThat(ProgressLog.bytes(5L << 30)).isEqualTo("5.0 GiB");
    }

    @Test
    void shouldReportTheRecoveryOfEveryLogOfADataDirectory() throws Exception {
        LogManager first = LogManager.open(new LogManagerOptions(tmp).backgroundThreads(false));
        for (int p = 0; p < 3; p++) {
            first.getOrCreateLog("orders", p, LogConfig.defaults()).append(Batches.batch(0, 1, "k"), 0);
        }
        first.crash();
        try (LogManager m = LogManager.open(new LogManagerOptions(tmp).backgroundThreads(false)
                .progressLines(lines::add)
                .defaults(LogConfig.defaults().with(Map.of(LogConfig.FILE_DELETE_DELAY_MS, 0))))) {
            assertThat(m.allLogs()).hasSize(3);
        }
        assertThat(lines).hasSize(1);
        assertThat(lines.get(0)).startsWith("Recovered logs in " + tmp + ": 3/3 logs, ").contains(" B (");
    }
}
