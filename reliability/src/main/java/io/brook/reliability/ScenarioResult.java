package io.brook.reliability;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What one scenario found: the checks it made (each passed or failed, with what was seen), the
 * figures it measured and notes for the reader. PASS when every check passed, FAIL when one
 * failed or the scenario ended early with an error, SKIP (with the reason) when it could not run
 * on this machine. Filled by the scenario's own thread, read after it returned.
 */
public final class ScenarioResult {

    public enum Status { PASS, FAIL, SKIP }

    public record Check(String name, boolean passed, String detail) {
    }

    /** A measured value; {@code value} is already formatted (numbers with {@link #number}). */
    public record Figure(String name, String value, String unit) {
    }

    private final String scenario;
    private final String size;
    private final List<Check> checks = new ArrayList<>();
    private final List<Figure> figures = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private String skipReason;
    private String error;
    private String errorTrace;
    private double seconds;

    ScenarioResult(String scenario, String size) {
        this.scenario = scenario;
        this.size = size;
    }

    public String scenario() {
        return scenario;
    }

    /** The parameters it ran with, in words. */
    public String size() {
        return size;
    }

    ScenarioResult check(String name, boolean passed, String detail) {
        checks.add(new Check(name, passed, detail));
        return this;
    }

    ScenarioResult figure(String name, long value, String unit) {
        figures.add(new Figure(name, Long.toString(value), unit));
        return this;
    }

    ScenarioResult figure(String name, double value, String unit) {
        figures.add(new Figure(name, number(value), unit));
        return this;
    }

    ScenarioResult figure(String name, String value) {
        figures.add(new Figure(name, value, ""));
        return this;
    }

    ScenarioResult note(String note) {
        notes.add(note);
        return this;
    }

    void skip(String reason) {
        this.skipReason = reason;
    }

    void error(Throwable t) {
        this.error = t.toString();
        java.io.StringWriter trace = new java.io.StringWriter();
        t.printStackTrace(new java.io.PrintWriter(trace));
        this.errorTrace = trace.toString();
    }

    void seconds(double seconds) {
        this.seconds = seconds;
    }

    public Status status() {
        if (skipReason != null) {
            return Status.SKIP;
        }
        if (error != null || checks.stream().anyMatch(c -> !c.passed())) {
            return Status.FAIL;
        }
        return Status.PASS;
    }

    /** The check of this name; fails if the scenario made none. */
    public Check check(String name) {
        return checks.stream().filter(c -> c.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no check '" + name + "' in " + this));
    }

    public Figure figure(String name) {
        return figures.stream().filter(f -> f.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no figure '" + name + "' in " + this));
    }

    public List<Check> checks() {
        return List.copyOf(checks);
    }

    public List<Figure> figures() {
        return List.copyOf(figures);
    }

    public List<String> notes() {
        return List.copyOf(notes);
    }

    public String skipReason() {
        return skipReason;
    }

    public String error() {
        return error;
    }

    /** The stack trace of the exception that ended the scenario early, or null. */
    public String errorTrace() {
        return errorTrace;
    }

    public double seconds() {
        return seconds;
    }

    /** Whole numbers without decimals, others with up to three significant decimals. */
    static String number(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        if (Math.abs(v) >= 100) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        return String.format(Locale.ROOT, "%.3f", v).replaceAll("0+$", "").replaceAll("\\.$", "");
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(scenario).append(": ").append(status());
        if (skipReason != null) {
            sb.append(" (").append(skipReason).append(')');
        }
        if (error != null) {
            sb.append(" error: ").append(errorTrace);
        }
        for (Check c : checks) {
            sb.append("\n  [").append(c.passed() ? "ok" : "FAILED").append("] ").append(c.name()).append(": ")
                    .append(c.detail());
        }
        for (Figure f : figures) {
            sb.append("\n  ").append(f.name()).append(" = ").append(f.value()).append(f.unit().isEmpty() ? "" : " " + f.unit());
        }
        return sb.toString();
    }
}
