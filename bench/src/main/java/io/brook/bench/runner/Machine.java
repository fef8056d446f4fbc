package io.brook.bench.runner;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/** The line of the report that says what machine measured: cores, memory, CPU model, kernel. */
final class Machine {
    private Machine() {
    }

    static String describe() {
        String cpu = "unknown CPU";
        String mem = "unknown memory";
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    cpu = line.substring(line.indexOf(':') + 1).trim();
                    break;
                }
            }
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    long kb = Long.parseLong(line.replaceAll("[^0-9]", ""));
                    mem = String.format(Locale.ROOT, "%.1f GiB", kb / 1024.0 / 1024.0);
                    break;
                }
            }
        } catch (IOException | UncheckedIOException | NumberFormatException e) {
            // keep what was found
        }
        return Runtime.getRuntime().availableProcessors() + " CPUs (nproc), " + mem + " memory, " + cpu
                + ", Linux " + System.getProperty("os.version");
    }
}
