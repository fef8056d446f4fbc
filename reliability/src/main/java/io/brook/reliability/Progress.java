package io.brook.reliability;

import java.io.PrintStream;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * Progress lines on stderr, each prefixed with the time and the scenario running: phases always,
 * running counts at most every five seconds. Thread-safe; {@link #silent()} for the tests, whose
 * output goes to files anyway.
 */
final class Progress {
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss", Locale.ROOT);
    private static final long UPDATE_EVERY_NANOS = 5_000_000_000L;

    private final PrintStream out;
    private String scenario = "";
    private long lastLine;

    Progress(PrintStream out) {
        this.out = out;
    }

    static Progress silent() {
        return new Progress(null);
    }

    /** From now on lines are about {@code name}. */
    synchronized void step(String name) {
        scenario = name;
        line("...", true);
    }

    /** A new phase of the scenario: always printed. */
    synchronized void phase(String what) {
        line(what, true);
    }

    /** Running counts: printed unless a line was printed less than five seconds ago. */
    synchronized void update(String detail) {
        line(detail, false);
    }

    /** A line of its own, without the scenario's name. */
    synchronized void note(String text) {
        print(text);
    }

    private void line(String text, boolean always) {
        long now = System.nanoTime();
        if (always || now - lastLine >= UPDATE_EVERY_NANOS) {
            lastLine = now;
            print(scenario + " | " + text);
        }
    }

    private void print(String text) {
        if (out != null) {
            out.println("[" + LocalTime.now(ZoneId.systemDefault()).format(TIME) + "] " + text);
            out.flush();
        }
    }
}
