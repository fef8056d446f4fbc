package io.brook.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The parsers of /proc/<pid>/status, /proc/<pid>/stat and jstack output, on samples. */
class ProcFilesTest {

    @Test
    void statusGivesRssPeakAndThreads() {
        String status = "Name:\tjava\nVmPeak:\t 5000000 kB\nVmHWM:\t  204800 kB\nVmRSS:\t  102400 kB\nThreads:\t44\n";
        assertThat(ProcStatus.parse(status)).isEqualTo(new ProcStatus(100L << 20, 200L << 20, 44));
    }

    @Test
    void statusWithoutTheLinesIsRefused() {
        assertThatThrownBy(() -> ProcStatus.parse("Name:\tjava\n")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void cpuSecondsCountFieldsAfterTheCommand() {
        // a command name with a space and a parenthesis in it; utime 250, stime 50 ticks
        String stat = "1234 (my (java) x) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 44 0 12345";
        assertThat(CpuTime.seconds(stat)).isEqualTo(3.0);
    }

    @Test
    void threadGroupsDropTheNumbersPoolsAppend() {
        assertThat(ThreadCpu.group("brook-network-1\n")).isEqualTo("brook-network");
        assertThat(ThreadCpu.group("brook-io-12")).isEqualTo("brook-io");
        assertThat(ThreadCpu.group("GC Thread#0")).isEqualTo("GC Thread");
        assertThat(ThreadCpu.group("brook-timer")).isEqualTo("brook-timer");
        assertThat(ThreadCpu.group("C1 CompilerThre")).isEqualTo("C1 CompilerThre");
    }

    @Test
    void contextSwitchesAddBothKinds() {
        String status = "Name:\tjava\nvoluntary_ctxt_switches:\t120\nnonvoluntary_ctxt_switches:\t7\n";
        assertThat(ThreadCpu.contextSwitches(status)).isEqualTo(127);
    }

    @Test
    void threadDumpCountsThreadsAndBlockedOnes() {
        String dump = """
                "main" #1 prio=5 os_prio=0 tid=0x1 nid=0x2 waiting on condition
                   java.lang.Thread.State: WAITING (parking)
                "io-1" #20 daemon prio=5 tid=0x3 nid=0x4 waiting for monitor entry
                   java.lang.Thread.State: BLOCKED (on object monitor)
                "GC Thread#0" os_prio=0 tid=0x5 nid=0x6 runnable
                """;
        assertThat(ThreadDump.parse(dump, Path.of("x"))).isEqualTo(new ThreadDump(3, 1, Path.of("x")));
    }

    @Test
    void openFilesAreSortedBySocketsAnonymousInodesPipesAndFiles() {
        assertThat(OpenFiles.kind("socket:[4242]")).isEqualTo(OpenFiles.SOCKET);
        assertThat(OpenFiles.kind("anon_inode:[eventpoll]")).isEqualTo("anon_inode");
        assertThat(OpenFiles.kind("pipe:[17]")).isEqualTo("pipe");
        assertThat(OpenFiles.kind("/data/t-0/00000000000000000000.log")).isEqualTo("file");
        assertThat(OpenFiles.of(ProcessHandle.current().pid())).containsKey("file");
    }
}
