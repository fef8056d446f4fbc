package io.brook.bench.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;

/** The harness's output: lines printed as they are measured and written to the figures file at the end. */
final class Figures {
    private final StringBuilder text = new StringBuilder();

    void section(String title) {
        line("");
        line("## " + title);
    }

    void line(String format, Object... args) {
        String s = String.format(Locale.ROOT, format, args);
        System.out.println(s);
        System.out.flush();
        text.append(s).append('\n');
    }

    void writeTo(Path file) throws IOException {
        if (file.getParent() != null) {
            Files.createDirectories(file.getParent());
        }
        Files.writeString(file, text.toString(), StandardCharsets.UTF_8);
    }

    /** A task to time; may throw. */
    interface Task {
        void run() throws Exception;
    }

    /** Runs {@code task} {@code warmup} times, then {@code runs} times timed; the timings in nanoseconds, sorted. */
    static long[] time(int warmup, int runs, Task task) throws Exception {
        for (int i = 0; i < warmup; i++) {
            task.run();
        }
        long[] ns = new long[runs];
        for (int i = 0; i < runs; i++) {
            long start = System.nanoTime();
            task.run();
            ns[i] = System.nanoTime() - start;
        }
        Arrays.sort(ns);
        return ns;
    }

    static double median(long[] sorted) {
        return sorted[sorted.length / 2];
    }

    static double percentile(long[] sorted, double p) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p / 100 * sorted.length) - 1)];
    }

    static double ms(double ns) {
        return ns / 1e6;
    }

    static double us(double ns) {
        return ns / 1e3;
    }
}
