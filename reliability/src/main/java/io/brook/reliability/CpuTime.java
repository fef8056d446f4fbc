package io.brook.reliability;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU seconds used so far by a process (utime + stime of {@code /proc/<pid>/stat}, at the usual
 * 100 ticks a second) and by this JVM: over a measured window they tell whether the machine's
 * cores, rather than the broker, set the pace.
 */
final class CpuTime {
    private static final double TICKS_PER_SECOND = 100;

    private CpuTime() {
    }

    /** From the text of {@code /proc/<pid>/stat}; fields are counted after the command's closing parenthesis. */
    static double seconds(String statLine) {
        String[] f = statLine.substring(statLine.lastIndexOf(')') + 2).trim().split("\\s+");
        // f[0] is field 3 (state); utime and stime are fields 14 and 15
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / TICKS_PER_SECOND;
    }

    static double ofProcess(long pid) throws IOException {
        return seconds(Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.US_ASCII));
    }

    static double ofThisJvm() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime() / 1e9;
    }
}
