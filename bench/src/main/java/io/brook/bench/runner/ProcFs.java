package io.brook.bench.runner;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What the runner reads about a broker process from Linux's {@code /proc}: CPU time, peak
 * resident memory and the moment the process was started.
 *
 * <p>The parsers take the file's text so that they can be tested on sample lines; the readers
 * around them open the live files.
 */
final class ProcFs {

    /** Clock ticks per second of {@code /proc/<pid>/stat}; 100 on every Linux we run on. */
    static final int DEFAULT_CLOCK_TICKS = 100;

    // Field numbers of /proc/<pid>/stat as proc(5) counts them (1-based). The second field,
    // comm, is in parentheses and may itself contain spaces and ')', so fields are counted
    // from the LAST ')' on the line: field 3 (state) is the first token after it.
    private static final int FIELD_STATE = 3;
    private static final int FIELD_UTIME = 14;
    private static final int FIELD_STIME = 15;
    private static final int FIELD_STARTTIME = 22;

    private ProcFs() {
    }

    /** utime + stime, in clock ticks, from the text of {@code /proc/<pid>/stat}. */
    static long cpuTicks(String statLine) {
        String[] f = fieldsAfterComm(statLine, FIELD_STIME);
        return Long.parseLong(f[FIELD_UTIME - FIELD_STATE]) + Long.parseLong(f[FIELD_STIME - FIELD_STATE]);
    }

    /** Start time in clock ticks since boot, from the text of {@code /proc/<pid>/stat}. */
    static long startTicks(String statLine) {
        String[] f = fieldsAfterComm(statLine, FIELD_STARTTIME);
        return Long.parseLong(f[FIELD_STARTTIME - FIELD_STATE]);
    }

    private static String[] fieldsAfterComm(String statLine, int lastField) {
        int close = statLine.lastIndexOf(')');
        if (close < 0) {
            throw new IllegalArgumentException("not a /proc/<pid>/stat line: " + statLine);
        }
        String[] f = statLine.substring(close + 1).trim().split("\\s+");
        if (f.length < lastField - FIELD_STATE + 1) {
            throw new IllegalArgumentException("only " + (f.length + 2) + " fields in /proc/<pid>/stat line");
        }
        return f;
    }

    /**
     * CPU time the whole machine spent busy, in clock ticks summed over all CPUs, from the text
     * of {@code /proc/stat}: user, nice, system, irq, softirq and steal of the {@code cpu} line
     * (idle and iowait are not busy; guest time is already inside user).
     */
    static long machineBusyTicks(String procStat) {
        for (String line : procStat.split("\n")) {
            if (line.startsWith("cpu ")) {
                String[] f = line.substring(4).trim().split("\\s+");
                if (f.length < 8) {
                    throw new IllegalArgumentException("only " + f.length + " numbers on /proc/stat's cpu line");
                }
                // user nice system idle iowait irq softirq steal ...
                return Long.parseLong(f[0]) + Long.parseLong(f[1]) + Long.parseLong(f[2]) + Long.parseLong(f[5])
                        + Long.parseLong(f[6]) + Long.parseLong(f[7]);
            }
        }
        throw new IllegalArgumentException("no cpu line in /proc/stat");
    }

    /** VmHWM (peak resident set) in bytes, from the text of {@code /proc/<pid>/status}. */
    static long peakRssBytes(String statusText) {
        for (String line : statusText.split("\n")) {
            if (line.startsWith("VmHWM:")) {
                String[] parts = line.substring("VmHWM:".length()).trim().split("\\s+");
                if (parts.length != 2 || !parts[1].equals("kB")) {
                    throw new IllegalArgumentException("unexpected VmHWM line: " + line);
                }
                return Long.parseLong(parts[0]) * 1024;
            }
        }
        throw new IllegalArgumentException("no VmHWM line in /proc/<pid>/status");
    }

    /** Seconds since boot, from the text of {@code /proc/uptime} (first field, 10 ms resolution). */
    static double uptimeSeconds(String uptimeText) {
        return Double.parseDouble(uptimeText.trim().split("\\s+")[0]);
    }

    /**
     * Wall-clock time (epoch ms) at which a process started, given its start ticks, the system
     * uptime and the wall clock read at the same moment. {@code /proc/stat}'s {@code btime} has
     * only whole seconds, so the start is placed relative to "now" instead: resolution 10 ms.
     */
    static long startEpochMillis(long startTicks, int clockTicks, double uptimeSeconds, long nowEpochMillis) {
        double ageMs = uptimeSeconds * 1000.0 - startTicks * 1000.0 / clockTicks;
        return nowEpochMillis - Math.round(ageMs);
    }

    // ---- live readers ----

    static long cpuTicks(long pid) {
        return cpuTicks(read(Path.of("/proc", Long.toString(pid), "stat")));
    }

    static long machineBusyTicks() {
        return machineBusyTicks(read(Path.of("/proc/stat")));
    }

    static long peakRssBytes(long pid) {
        return peakRssBytes(read(Path.of("/proc", Long.toString(pid), "status")));
    }

    static long startEpochMillis(long pid, int clockTicks) {
        long ticks = startTicks(read(Path.of("/proc", Long.toString(pid), "stat")));
        double uptime = uptimeSeconds(read(Path.of("/proc/uptime")));
        return startEpochMillis(ticks, clockTicks, uptime, System.currentTimeMillis());
    }

    /** {@code getconf CLK_TCK}, or {@link #DEFAULT_CLOCK_TICKS} if that cannot be run. */
    static int clockTicks() {
        try {
            Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
            return p.waitFor() == 0 ? Integer.parseInt(out) : DEFAULT_CLOCK_TICKS;
        } catch (IOException | NumberFormatException e) {
            return DEFAULT_CLOCK_TICKS;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return DEFAULT_CLOCK_TICKS;
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + file + " (has the broker exited?)", e);
        }
    }
}
