package io.brook.reliability;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A process's resident memory (VmRSS), its peak (VmHWM) and thread count, from the text of
 * {@code /proc/<pid>/status}. The parser takes the text so that it can be tested on a sample.
 */
record ProcStatus(long rssBytes, long peakRssBytes, int threads) {

    static ProcStatus parse(String statusText) {
        long rss = -1;
        long hwm = -1;
        int threads = -1;
        for (String line : statusText.split("\n")) {
            if (line.startsWith("VmRSS:")) {
                rss = kiloBytes(line);
            } else if (line.startsWith("VmHWM:")) {
                hwm = kiloBytes(line);
            } else if (line.startsWith("Threads:")) {
                threads = Integer.parseInt(line.substring("Threads:".length()).trim());
            }
        }
        if (rss < 0 || hwm < 0 || threads < 0) {
            throw new IllegalArgumentException("no VmRSS, VmHWM or Threads line in /proc/<pid>/status");
        }
        return new ProcStatus(rss, hwm, threads);
    }

    /** The live figures of {@code pid}; throws if the process is gone. */
    static ProcStatus of(long pid) throws IOException {
        return parse(Files.readString(Path.of("/proc", Long.toString(pid), "status"), StandardCharsets.US_ASCII));
    }

    private static long kiloBytes(String line) {
        String[] parts = line.substring(line.indexOf(':') + 1).trim().split("\\s+");
        if (parts.length != 2 || !parts[1].equals("kB")) {
            throw new IllegalArgumentException("unexpected line in /proc/<pid>/status: " + line);
        }
        return Long.parseLong(parts[0]) * 1024;
    }
}
