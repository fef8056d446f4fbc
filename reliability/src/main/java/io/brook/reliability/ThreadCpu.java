package io.brook.reliability;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * A process's CPU time and context switches by thread group, from {@code /proc/<pid>/task/*}: a
 * thread's group is its name without the numbers Netty and the pools append ({@code
 * brook-network-1-2} and {@code brook-network-3-1} are both {@code brook-network}). Taken before
 * and after a window, the difference tells where the process spent its CPU there, and how often
 * its threads gave up or lost a core (figures that, unlike throughput, hardly depend on what
 * else runs on the machine).
 */
record ThreadCpu(Map<String, Double> secondsByGroup, long contextSwitches) {

    /** A thread's group: its name without trailing {@code -N} and {@code #N} parts. */
    static String group(String threadName) {
        String g = threadName.strip();
        while (true) {
            int cut = Math.max(g.lastIndexOf('-'), g.lastIndexOf('#'));
            if (cut <= 0 || cut == g.length() - 1 || !g.substring(cut + 1).chars().allMatch(Character::isDigit)) {
                return g;
            }
            g = g.substring(0, cut);
        }
    }

    /** Voluntary plus involuntary context switches named in a {@code /proc/.../status} text. */
    static long contextSwitches(String statusText) {
        long n = 0;
        for (String line : statusText.split("\n")) {
            if (line.startsWith("voluntary_ctxt_switches:") || line.startsWith("nonvoluntary_ctxt_switches:")) {
                n += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        return n;
    }

    /** The figures of {@code pid} now; threads that end while they are read are left out. */
    static ThreadCpu of(long pid) throws IOException {
        Map<String, Double> seconds = new TreeMap<>();
        long switches = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : tasks) {
                try {
                    String name = Files.readString(task.resolve("comm"), StandardCharsets.US_ASCII);
                    String stat = Files.readString(task.resolve("stat"), StandardCharsets.US_ASCII);
                    String status = Files.readString(task.resolve("status"), StandardCharsets.US_ASCII);
                    seconds.merge(group(name), CpuTime.seconds(stat), Double::sum);
                    switches += contextSwitches(status);
                } catch (NoSuchFileException e) {
                    // the thread ended meanwhile
                }
            }
        }
        return new ThreadCpu(seconds, switches);
    }

    /**
     * Adds to {@code result}, for the window from {@code before} to this, the CPU of each thread
     * group that used at least 1 % of a core ({@code prefix} + group, in cores) and the context
     * switches per second.
     */
    void reportSince(ThreadCpu before, double windowSeconds, String prefix, ScenarioResult result) {
        Map<String, Double> used = new TreeMap<>();
        secondsByGroup.forEach((g, s) -> used.put(g, s - before.secondsByGroup.getOrDefault(g, 0.0)));
        used.entrySet().stream().filter(e -> e.getValue() / windowSeconds >= 0.01)
                .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                .forEach(e -> result.figure(prefix + e.getKey(), e.getValue() / windowSeconds, "cores"));
        result.figure(prefix + "context switches", (contextSwitches - before.contextSwitches) / windowSeconds, "/s");
    }
}
