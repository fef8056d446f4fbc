package io.brook.bench.runner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ProcFsTest {
    // a real line of /proc/<pid>/stat with a comm that contains spaces and a ')' of its own
    private static final String STAT = "4242 (java (main) x) S 1 4242 4242 0 -1 4194560 183614 0 12 0 "
            + "1234 567 0 0 20 0 61 0 98765 6053052416 101453 18446744073709551615 1 1 0 0 0 0 0 3 16800972 "
            + "0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0";

    @Test
    void shouldSumUserAndSystemTicksCountingFieldsFromTheLastParenthesis() {
        assertThat(ProcFs.cpuTicks(STAT)).isEqualTo(1234 + 567);
    }

    @Test
    void shouldReadTheStartTimeInTicksSinceBoot() {
        assertThat(ProcFs.startTicks(STAT)).isEqualTo(98765);
    }

    @Test
    void shouldRejectTextThatIsNotAStatLine() {
        assertThatThrownBy(() -> ProcFs.cpuTicks("no parenthesis here")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ProcFs.cpuTicks("1 (x) S 1 2")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldCountTheMachinesBusyTicksWithoutIdleAndIoWait() {
        String stat = "cpu  100 2 30 5000 40 6 7 8 9 0\ncpu0 50 1 15 2500 20 3 3 4 4 0\nintr 12345\n";
        // user + nice + system + irq + softirq + steal; idle (5000), iowait (40) and guest (9) are not added
        assertThat(ProcFs.machineBusyTicks(stat)).isEqualTo(100 + 2 + 30 + 6 + 7 + 8);
        assertThatThrownBy(() -> ProcFs.machineBusyTicks("cpu0 1 2 3\n")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ProcFs.machineBusyTicks("cpu  1 2 3\n")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldReadPeakResidentSetInBytes() {
        String status = "Name:\tjava\nVmPeak:\t 6053052 kB\nVmHWM:\t  405812 kB\nVmRSS:\t  401000 kB\n";
        assertThat(ProcFs.peakRssBytes(status)).isEqualTo(405812L * 1024);
        assertThatThrownBy(() -> ProcFs.peakRssBytes("Name:\tjava\n")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldPlaceTheProcessStartRelativeToUptimeAndNow() {
        // booted 1000.00 s ago; the process started 987.65 s after boot, i.e. 12.35 s ago
        assertThat(ProcFs.uptimeSeconds("1000.00 1900.50\n")).isEqualTo(1000.0);
        assertThat(ProcFs.startEpochMillis(98765, 100, 1000.0, 1_700_000_000_000L))
                .isEqualTo(1_700_000_000_000L - 12_350);
    }

    @Test
    void shouldReadThisProcessAndTheMachineWhenProcIsPresent() {
        long pid = ProcessHandle.current().pid();
        assumeTrue(Files.exists(Path.of("/proc", Long.toString(pid), "stat")), "no /proc: not Linux");
        assertThat(ProcFs.machineBusyTicks()).isPositive();
        assertThat(ProcFs.cpuTicks(pid)).isPositive();
        assertThat(ProcFs.peakRssBytes(pid)).isGreaterThan(1024 * 1024);
        long started = ProcFs.startEpochMillis(pid, ProcFs.clockTicks());
        assertThat(started).isLessThanOrEqualTo(System.currentTimeMillis() + 20)
                .isGreaterThan(ProcessHandle.current().info().startInstant().orElseThrow().toEpochMilli() - 2_000);
    }
}
