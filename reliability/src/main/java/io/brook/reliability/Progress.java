package io.brook.reliability;

import java.io.PrintStream;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;

/**
 * Progress lines on stderr: one when a step starts, at most one update every few seconds while
 * it runs. Thread-safe; {@link #silent()} for the tests, whose output goes to files anyway.
 */
final class Progress {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss");
    private static final long UPDATE_EVERY_NANOS = 5_000_000_000L;

    private final PrintStream out;
    private String step = "";
    private long lastUpdate;

    Progress(PrintStream out) {
        this.out = out;
    }

    static Progress silent() {
        return new Progress(null);
    }

    synchronized void step(String what) {
        step = what;
        lastUpdate = System.nanoTime();
        print(step + " ...");
    }

    /** Prints {@code detail} unless an update was printed less than five seconds ago. */
    synchronized void update(String detail) {
        long now = System.nanoTime();
        if (now - lastUpdate >= UPDATE_EVERY_NANOS) {
            lastUpdate = now;
            print(step + " | " + detail);
        }
    }

    /** A new phase of the current step: always printed. */
    synchronized void phase(String what) {
        lastUpdate = System.nanoTime();
        print(step + " | " + what);
    }

    synchronized void note(String line) {
        print(line);
    }

    private void print(String line) {
        if (out != null) {
            out.println("[" + LocalTime.now().format(TIME) + "] " + line);
            out.flush();
        }
    }
}
