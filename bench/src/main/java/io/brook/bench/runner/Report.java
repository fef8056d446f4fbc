package io.brook.bench.runner;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The results as a Markdown table and as CSV: one row per workload and figure, one column per
 * broker, and the ratio of each Brook column to the reference (Kafka) column.
 */
final class Report {
    static final String MISSING = "–";
    static final String FAILED = "FAILED";

    private final List<String> brokers;
    private final String reference;
    private final List<Result> results;

    /**
     * @param brokers   column order; labels as in {@link Result#broker}
     * @param reference the broker every other one is divided by, or null for no ratio columns
     */
    Report(List<String> brokers, String reference, List<Result> results) {
        this.brokers = List.copyOf(brokers);
        this.reference = reference != null && brokers.contains(reference) ? reference : null;
        this.results = List.copyOf(results);
    }

    private List<String> compared() {
        List<String> c = new ArrayList<>();
        if (reference != null) {
            for (String b : brokers) {
                if (!b.equals(reference)) {
                    c.add(b);
                }
            }
        }
        return c;
    }

    private Set<String> workloads() {
        Set<String> w = new LinkedHashSet<>();
        for (Result r : results) {
            w.add(r.workload);
        }
        return w;
    }

    private Result find(String workload, String broker) {
        for (Result r : results) {
            if (r.workload.equals(workload) && r.broker.equals(broker)) {
                return r;
            }
        }
        return null;
    }

    /** The metrics any broker reported for the workload, in {@link Metric} order. */
    private List<Metric> metrics(String workload) {
        List<Metric> m = new ArrayList<>();
        for (Metric metric : Metric.values()) {
            for (String b : brokers) {
                Result r = find(workload, b);
                if (r != null && r.values.containsKey(metric)) {
                    m.add(metric);
                    break;
                }
            }
        }
        return m;
    }

    private boolean anyFailed(String workload) {
        for (String b : brokers) {
            Result r = find(workload, b);
            if (r != null && r.failed()) {
                return true;
            }
        }
        return false;
    }

    private Double value(String workload, String broker, Metric metric) {
        Result r = find(workload, broker);
        return r == null ? null : r.values.get(metric);
    }

    private String cell(String workload, String broker, Metric metric) {
        Result r = find(workload, broker);
        if (r == null) {
            return MISSING;
        }
        if (r.failed()) {
            return FAILED;
        }
        Double v = r.values.get(metric);
        return v == null ? MISSING : metric.format(v);
    }

    static Double ratio(Double value, Double reference) {
        if (value == null || reference == null || reference == 0.0 || reference.isNaN() || value.isNaN()) {
            return null;
        }
        return value / reference;
    }

    static String formatRatio(Double ratio) {
        return ratio == null ? MISSING : String.format(Locale.ROOT, "%.2f×", ratio);
    }

    String markdown() {
        StringBuilder sb = new StringBuilder();
        List<String> header = new ArrayList<>(List.of("workload", "figure"));
        header.addAll(brokers);
        for (String b : compared()) {
            header.add(b + " / " + reference);
        }
        row(sb, header);
        List<String> rule = new ArrayList<>();
        for (int i = 0; i < header.size(); i++) {
            rule.add(i < 2 ? "---" : "---:");
        }
        row(sb, rule);
        for (String w : workloads()) {
            List<Metric> metrics = metrics(w);
            if (metrics.isEmpty() && anyFailed(w)) {
                List<String> cells = new ArrayList<>(List.of(w, "(all)"));
                for (String b : brokers) {
                    Result r = find(w, b);
                    cells.add(r == null ? MISSING : r.failed() ? FAILED : MISSING);
                }
                cells.addAll(Collections.nCopies(compared().size(), MISSING));
                row(sb, cells);
                continue;
            }
            for (Metric m : metrics) {
                List<String> cells = new ArrayList<>(List.of(w, m.label));
                for (String b : brokers) {
                    cells.add(cell(w, b, m));
                }
                for (String b : compared()) {
                    cells.add(formatRatio(ratio(value(w, b, m), value(w, reference, m))));
                }
                row(sb, cells);
            }
        }
        List<Result> failures = failures();
        if (!failures.isEmpty()) {
            sb.append('\n');
            for (Result r : failures) {
                sb.append("- FAILED: ").append(r.broker).append(", ").append(r.workload).append(": ")
                        .append(r.failure.replace('\n', ' ')).append('\n');
            }
        }
        return sb.toString();
    }

    List<Result> failures() {
        List<Result> f = new ArrayList<>();
        for (Result r : results) {
            if (r.failed()) {
                f.add(r);
            }
        }
        return f;
    }

    private static void row(StringBuilder sb, List<String> cells) {
        sb.append('|');
        for (String c : cells) {
            sb.append(' ').append(c.replace("|", "\\|")).append(" |");
        }
        sb.append('\n');
    }

    /** Plain numbers (no separators), empty for missing, {@code FAILED} for a failed workload. */
    String csv() {
        StringBuilder sb = new StringBuilder();
        List<String> header = new ArrayList<>(List.of("workload", "figure", "unit"));
        header.addAll(brokers);
        for (String b : compared()) {
            header.add(b + "/" + reference);
        }
        csvRow(sb, header);
        for (String w : workloads()) {
            for (Metric m : metrics(w)) {
                List<String> cells = new ArrayList<>(List.of(w, m.key(), m.label));
                for (String b : brokers) {
                    Result r = find(w, b);
                    Double v = value(w, b, m);
                    cells.add(r != null && r.failed() ? FAILED : v == null ? "" : plain(v));
                }
                for (String b : compared()) {
                    Double q = ratio(value(w, b, m), value(w, reference, m));
                    cells.add(q == null ? "" : String.format(Locale.ROOT, "%.4f", q));
                }
                csvRow(sb, cells);
            }
        }
        return sb.toString();
    }

    private static String plain(double v) {
        return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : String.format(Locale.ROOT, "%.4f", v);
    }

    private static void csvRow(StringBuilder sb, List<String> cells) {
        for (int i = 0; i < cells.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            String c = cells.get(i);
            if (c.contains(",") || c.contains("\"") || c.contains("\n")) {
                sb.append('"').append(c.replace("\"", "\"\"")).append('"');
            } else {
                sb.append(c);
            }
        }
        sb.append('\n');
    }

    /** Throughput (MB/s) per workload and broker, for the chart. */
    Map<String, Map<String, Double>> series(Metric metric, java.util.function.Predicate<String> workloads) {
        Map<String, Map<String, Double>> out = new java.util.LinkedHashMap<>();
        for (String w : workloads()) {
            if (!workloads.test(w)) {
                continue;
            }
            Map<String, Double> perBroker = new java.util.LinkedHashMap<>();
            for (String b : brokers) {
                Double v = value(w, b, metric);
                if (v != null) {
                    perBroker.put(b, v);
                }
            }
            if (!perBroker.isEmpty()) {
                out.put(w, perBroker);
            }
        }
        return out;
    }
}
