package io.brook.reliability;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** A {@code jstack} of a process, saved to a file, and the number of threads (and blocked ones) in it. */
record ThreadDump(int threads, int blocked, Path file) {

    static ThreadDump take(long pid, Path file) throws IOException, InterruptedException {
        Path jstack = Path.of(System.getProperty("java.home"), "bin", "jstack");
        Process p = new ProcessBuilder(Files.isExecutable(jstack) ? jstack.toString() : "jstack", Long.toString(pid))
                .redirectErrorStream(true).start();
        String dump = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException("jstack " + pid + " failed: " + dump.lines().limit(3).toList());
        }
        Files.writeString(file, dump, StandardCharsets.UTF_8);
        return parse(dump, file);
    }

    static ThreadDump parse(String dump, Path file) {
        int threads = 0;
        int blocked = 0;
        for (String line : dump.split("\n")) {
            if (line.startsWith("\"")) {
                threads++;
            } else if (line.trim().startsWith("java.lang.Thread.State: BLOCKED")) {
                blocked++;
            }
        }
        return new ThreadDump(threads, blocked, file);
    }
}
