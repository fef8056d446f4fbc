package io.brook.compat;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Command-line clients (kcat, node with kafkajs) used by compat tests. Where a tool is missing the
 * test is skipped with a message — except in CI ({@code CI=true}), where the tools are installed
 * by the build and a missing one must fail the build rather than silently skip its tests.
 */
final class Tools {

    private Tools() {
    }

    /** The executable on the PATH, or null. */
    static Path onPath(String name) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            File f = new File(dir, name);
            if (f.canExecute()) {
                return f.toPath();
            }
        }
        return null;
    }

    /** Skips (locally) or fails (CI) when {@code present} is false. */
    static void require(boolean present, String what) {
        if (present) {
            return;
        }
        if ("true".equalsIgnoreCase(System.getenv("CI"))) {
            fail(what + " is required in CI (CI=true) but is missing");
        }
        assumeTrue(false, what + " is missing; skipping (install it to run this test)");
    }

    record Result(int exit, String out, String err) {
    }

    /** Runs a command with a deadline, collecting stdout and stderr concurrently. */
    static Result run(List<String> command, Path workDir, long timeoutSeconds) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command);
        if (workDir != null) {
            pb.directory(workDir.toFile());
        }
        Process p = pb.start();
        p.getOutputStream().close();
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(p.getInputStream()));
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(p.getErrorStream()));
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(command + " did not finish within " + timeoutSeconds + " s; stderr: "
                    + err.getNow(""));
        }
        return new Result(p.exitValue(), out.join(), err.join());
    }

    /**
     * Runs one of Kafka's command-line tools as its script does: a JVM of its own starting the
     * tool's main class with the test class path (which holds kafka-tools).
     */
    static Result kafkaTool(Class<?> mainClass, String... args) throws IOException, InterruptedException {
        List<String> cmd = new java.util.ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-cp", System.getProperty("java.class.path"), "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                mainClass.getName()));
        cmd.addAll(List.of(args));
        return run(cmd, null, 120);
    }

    /**
     * Runs one of Kafka's tools against {@code bootstrap} with the client settings of
     * {@code commandConfig} ({@code --command-config}) and fails unless it exits with 0.
     */
    static Result kafkaToolSucceeds(Class<?> mainClass, String bootstrap, Path commandConfig, String... args)
            throws IOException, InterruptedException {
        String[] all = new String[args.length + 4];
        all[0] = "--bootstrap-server";
        all[1] = bootstrap;
        all[2] = "--command-config";
        all[3] = commandConfig.toString();
        System.arraycopy(args, 0, all, 4, args.length);
        Result r = kafkaTool(mainClass, all);
        if (r.exit() != 0) {
            throw new AssertionError(mainClass.getSimpleName() + " " + List.of(args) + " exited with " + r.exit()
                    + ": " + r.out() + r.err());
        }
        return r;
    }

    private static String read(java.io.InputStream in) {
        try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "<" + e + ">";
        }
    }

    static boolean exists(Path p) {
        return Files.exists(p);
    }
}
