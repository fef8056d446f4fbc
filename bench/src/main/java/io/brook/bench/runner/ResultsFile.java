package io.brook.bench.runner;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How a runner measuring one broker ({@code --single}) hands its results to the parent: one line
 * per figure, {@code workload TAB broker TAB metric TAB value}, or per failure,
 * {@code workload TAB broker TAB FAILED TAB reason}. Tabs and line breaks never occur in
 * workload names and are replaced in failure reasons.
 */
final class ResultsFile {
    private static final String FAILED = "FAILED";

    private ResultsFile() {
    }

    static void write(Path file, List<Result> results) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (Result r : results) {
            if (r.failed()) {
                sb.append(r.workload).append('\t').append(r.broker).append('\t').append(FAILED).append('\t')
                        .append(r.failure.replace('\t', ' ').replace('\n', ' ').replace('\r', ' ')).append('\n');
                continue;
            }
            for (Map.Entry<Metric, Double> e : r.values.entrySet()) {
                sb.append(r.workload).append('\t').append(r.broker).append('\t').append(e.getKey().name()).append('\t')
                        .append(Double.toString(e.getValue())).append('\n');
            }
        }
        Files.writeString(file, sb.toString(), StandardCharsets.UTF_8);
    }

    static List<Result> read(Path file) throws IOException {
        // in the order of first appearance, as the writer listed them
        Map<String, Object> byKey = new LinkedHashMap<>(); // a Result.Builder, or a failed Result
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (line.isEmpty()) {
                continue;
            }
            String[] f = line.split("\t", 4);
            if (f.length != 4) {
                throw new IOException(file + ": not a results line: " + line);
            }
            String key = f[0] + '\t' + f[1];
            if (f[2].equals(FAILED)) {
                byKey.put(key, Result.failed(f[0], f[1], f[3]));
                continue;
            }
            Metric metric;
            double value;
            try {
                metric = Metric.valueOf(f[2]);
                value = Double.parseDouble(f[3]);
            } catch (IllegalArgumentException e) {
                throw new IOException(file + ": not a results line: " + line, e);
            }
            if (byKey.computeIfAbsent(key, k -> Result.of(f[0], f[1])) instanceof Result.Builder b) {
                b.put(metric, value);
            }
        }
        List<Result> all = new ArrayList<>();
        for (Object o : byKey.values()) {
            all.add(o instanceof Result.Builder b ? b.build() : (Result) o);
        }
        return all;
    }
}
