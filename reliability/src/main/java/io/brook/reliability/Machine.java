package io.brook.reliability;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/** The machine a run measured, in the words of {@code nproc}, {@code free -h}, {@code df -h} and {@code uname}. */
final class Machine {
    private Machine() {
    }

    static String describe(Path dataDir) {
        return "- CPUs (`nproc`): " + command("nproc") + "\n"
                + "- memory (`free -h`): " + labelled(command("free", "-h"), "Mem:") + "\n"
                + "- disk of the data directories (`df -h`): " + labelled(command("df", "-h", dataDir.toString()), "/") + "\n"
                + "- kernel: " + command("uname", "-sr") + "; Java " + System.getProperty("java.version") + " ("
                + System.getProperty("java.vm.name") + ")";
    }

    /**
     * The first line of a table's output that starts with {@code rowStart}, each value after its
     * column's heading ({@code total 23Gi, used 3.1Gi, ...}); values without a heading (free's
     * row label) are left out.
     */
    static String labelled(String table, String rowStart) {
        List<String> lines = table.replace("Mounted on", "Mounted-on").lines().toList();
        if (lines.size() < 2) {
            return table;
        }
        String[] heads = lines.get(0).trim().split("\\s+");
        for (String line : lines.subList(1, lines.size())) {
            if (line.startsWith(rowStart)) {
                String[] values = line.trim().split("\\s+");
                int skip = Math.max(0, values.length - heads.length);
                StringBuilder sb = new StringBuilder();
                for (int i = skip; i < values.length && i - skip < heads.length; i++) {
                    sb.append(sb.length() == 0 ? "" : ", ").append(heads[i - skip]).append(' ').append(values[i]);
                }
                return sb.toString();
            }
        }
        return "?";
    }

    /** The command's output, trimmed, or {@code ?} if it cannot be run. */
    static String command(String... cmd) {
        try {
            Process p = new ProcessBuilder(List.of(cmd)).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return p.waitFor() == 0 ? out : "?";
        } catch (IOException e) {
            return "?";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "?";
        }
    }
}
