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
                + "- memory (`free -h`): " + command("free", "-h").lines().filter(l -> l.startsWith("Mem:")).findFirst()
                        .orElse("?").replaceAll("\\s+", " ") + "\n"
                + "- disk of the data directories (`df -h`): " + command("df", "-h", dataDir.toString()).lines().skip(1)
                        .findFirst().orElse("?").replaceAll("\\s+", " ") + "\n"
                + "- kernel: " + command("uname", "-sr") + "; Java " + System.getProperty("java.version") + " ("
                + System.getProperty("java.vm.name") + ")";
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
