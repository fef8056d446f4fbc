package io.brook.reliability;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The run's results as {@code results.md} (a summary table, then each scenario's checks,
 * figures and notes) and {@code results.csv} (one row per status, check and figure:
 * {@code scenario,kind,name,value,unit}).
 */
final class Report {
    private Report() {
    }

    static void write(Path dir, String header, List<ScenarioResult> results) throws IOException {
        Files.writeString(dir.resolve("results.md"), markdown(header, results), StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("results.csv"), csv(results), StandardCharsets.UTF_8);
    }

    static String markdown(String header, List<ScenarioResult> results) {
        StringBuilder sb = new StringBuilder("# Brook reliability run\n\n").append(header).append("\n\n");
        sb.append("| scenario | status | size | seconds |\n|---|---|---|---|\n");
        for (ScenarioResult r : results) {
            sb.append("| ").append(r.scenario()).append(" | ").append(statusText(r)).append(" | ").append(cell(r.size()))
                    .append(" | ").append(Math.round(r.seconds())).append(" |\n");
        }
        for (ScenarioResult r : results) {
            sb.append("\n## ").append(r.scenario()).append(": ").append(statusText(r)).append("\n\n");
            sb.append(r.size()).append("\n\n");
            if (r.error() != null) {
                sb.append("Ended early: `").append(r.error()).append("`\n\n");
            }
            if (!r.checks().isEmpty()) {
                sb.append("| check | result | what was seen |\n|---|---|---|\n");
                for (ScenarioResult.Check c : r.checks()) {
                    sb.append("| ").append(cell(c.name())).append(" | ").append(c.passed() ? "pass" : "**FAIL**")
                            .append(" | ").append(cell(c.detail())).append(" |\n");
                }
                sb.append('\n');
            }
            if (!r.figures().isEmpty()) {
                sb.append("| figure | value | unit |\n|---|---:|---|\n");
                for (ScenarioResult.Figure f : r.figures()) {
                    sb.append("| ").append(cell(f.name())).append(" | ").append(cell(f.value())).append(" | ")
                            .append(f.unit()).append(" |\n");
                }
                sb.append('\n');
            }
            for (String n : r.notes()) {
                sb.append("- ").append(n).append('\n');
            }
        }
        return sb.toString();
    }

    private static String statusText(ScenarioResult r) {
        return r.status() == ScenarioResult.Status.SKIP ? "SKIP (" + r.skipReason() + ")" : r.status().name();
    }

    static String csv(List<ScenarioResult> results) {
        StringBuilder sb = new StringBuilder("scenario,kind,name,value,unit\n");
        for (ScenarioResult r : results) {
            row(sb, r.scenario(), "status", "status", r.status().name(), "");
            row(sb, r.scenario(), "status", "seconds", ScenarioResult.number(r.seconds()), "s");
            for (ScenarioResult.Check c : r.checks()) {
                row(sb, r.scenario(), "check", c.name(), c.passed() ? "pass" : "fail", "");
            }
            for (ScenarioResult.Figure f : r.figures()) {
                row(sb, r.scenario(), "figure", f.name(), f.value(), f.unit());
            }
        }
        return sb.toString();
    }

    private static void row(StringBuilder sb, String... fields) {
        for (int i = 0; i < fields.length; i++) {
            if (i > 0) {
                sb.append(',');
            }
            String f = fields[i];
            if (f.indexOf(',') >= 0 || f.indexOf('"') >= 0 || f.indexOf('\n') >= 0) {
                sb.append('"').append(f.replace("\"", "\"\"")).append('"');
            } else {
                sb.append(f);
            }
        }
        sb.append('\n');
    }

    private static String cell(String s) {
        return s.replace("|", "\\|").replace("\n", " ");
    }
}
