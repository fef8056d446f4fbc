package io.brook.bench.runner;

import java.io.PrintStream;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * The progress line on stderr: one line when a step starts or ends, and at most one update every
 * two seconds while it runs. Thread-safe (the latency workload reports from two threads).
 */
final class Progress {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss", Locale.ROOT);
    private static final long UPDATE_EVERY_NANOS = 2_000_000_000L;

    private final PrintStream out;
    private String step = "";
    private long lastUpdate;

    Progress(PrintStream out) {
        this.out = out;
    }

    synchronized void step(String broker, String what) {
        step = broker + " | " + what;
        lastUpdate = System.nanoTime();
        print(step + " ...");
    }

    /** Prints the update unless one was printed less than two seconds ago. */
    synchronized void update(String detail) {
        long now = System.nanoTime();
        if (now - lastUpdate >= UPDATE_EVERY_NANOS) {
            lastUpdate = now;
            print(step + " | " + detail);
        }
    }

    synchronized void done(String summary) {
        print(step + " | " + summary);
    }

    synchronized void note(String line) {
        print(line);
    }

    private void print(String line) {
        out.println("[" + LocalTime.now(ZoneId.systemDefault()).format(TIME) + "] " + line);
        out.flush();
    }
}
