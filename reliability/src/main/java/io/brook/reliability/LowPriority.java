package io.brook.reliability;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Lowers the scheduling priority (nice 19) of this JVM's threads whose names start with a prefix.
 * The overload scenario generates its load on the broker's own machine: without this, the load
 * threads' own CPU (client-side encoding and decoding of thousands of requests a second) competes
 * with the measuring producer and the broker on the same cores, and the throughput figure measures
 * the runner as much as the broker. Reniced, the load takes only the CPU that is left over, as a
 * load from other machines would; the broker's work for it still runs at normal priority, so what
 * it costs the broker is still measured. Linux only: a thread is a task with its own nice value,
 * named after the Java thread (at most 15 characters).
 */
final class LowPriority {
    private LowPriority() {
    }

    /** Renices the matching threads that have started; returns how many were reniced. */
    static int renice(String threadNamePrefix) throws IOException, InterruptedException {
        Path tasks = Path.of("/proc/self/task");
        if (!Files.isDirectory(tasks)) {
            return 0;
        }
        List<Path> all;
        try (Stream<Path> s = Files.list(tasks)) {
            all = s.toList();
        }
        int reniced = 0;
        for (Path task : all) {
            String comm;
            try {
                comm = Files.readString(task.resolve("comm"), StandardCharsets.UTF_8).trim();
            } catch (IOException gone) {
                continue; // the thread ended meanwhile
            }
            if (comm.startsWith(threadNamePrefix)) {
                Process p = new ProcessBuilder("renice", "-n", "19", "-p", task.getFileName().toString())
                        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                if (p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0) {
                    reniced++;
                }
            }
        }
        return reniced;
    }
}
