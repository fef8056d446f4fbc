package io.brook.reliability;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * How a scenario starts a broker process: {@code bin/brook} as users start it (the runner), or
 * {@code java -cp CLASSPATH io.brook.server.BrookMain} (the tests, whose classpath holds the
 * server). Either way the started process is the broker's JVM itself, so that {@code kill -9}
 * of it is a crash of the broker.
 */
final class BrokerLauncher {
    private final List<String> prefix;
    private final Map<String, String> environment;
    private final String description;
    private final long heapMaxBytes;
    private final Map<String, String> extraOverrides;

    private BrokerLauncher(List<String> prefix, Map<String, String> environment, String description, long heapMaxBytes,
            Map<String, String> extraOverrides) {
        this.prefix = List.copyOf(prefix);
        this.environment = Map.copyOf(environment);
        this.description = description;
        this.heapMaxBytes = heapMaxBytes;
        this.extraOverrides = Map.copyOf(extraOverrides);
    }

    /**
     * The same launcher, every broker it starts also given {@code overrides} (the runner's
     * {@code --broker-override key=value}); a scenario's own override of the same key wins.
     */
    BrokerLauncher withOverrides(Map<String, String> overrides) {
        if (overrides.isEmpty()) {
            return this;
        }
        Map<String, String> all = new TreeMap<>(extraOverrides);
        all.putAll(overrides);
        StringBuilder text = new StringBuilder(description);
        all.forEach((k, v) -> text.append(", --override ").append(k).append('=').append(v));
        return new BrokerLauncher(prefix, environment, text.toString(), heapMaxBytes, all);
    }

    /**
     * {@code bin/brook} of the checkout at {@code root}, which must be built already
     * ({@code BROOK_SKIP_BUILD=1}: no build may fall into a measured start); bin/brook's default
     * heap, -Xmx1g.
     */
    static BrokerLauncher binBrook(Path root) {
        return new BrokerLauncher(List.of(root.resolve("bin/brook").toString()), Map.of("BROOK_SKIP_BUILD", "1"),
                "bin/brook (BROOK_SKIP_BUILD=1, default JVM options: -Xms256m -Xmx1g)", 1L << 30, Map.of());
    }

    /**
     * {@code java OPTIONS -cp classpath MAIN}, with the JVM that runs this code; {@code mainClass}
     * is the broker's command-line entry point ({@code io.brook.server.BrookMain}).
     */
    static BrokerLauncher java(String classpath, String mainClass, List<String> jvmOptions, long heapMaxBytes) {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        cmd.add(classpath);
        cmd.add(mainClass);
        return new BrokerLauncher(cmd, Map.of(), "java " + String.join(" ", jvmOptions) + " " + mainClass, heapMaxBytes, Map.of());
    }

    String description() {
        return description;
    }

    /** The broker's largest heap (-Xmx), the base of the memory bounds the scenarios check. */
    long heapMaxBytes() {
        return heapMaxBytes;
    }

    /**
     * Starts a broker on 127.0.0.1:port with its data in {@code dataDir}, output appended to
     * {@code log}. Returns at once; {@link ReadyProbe} waits until it serves. Overrides that set
     * {@code listeners} replace the PLAINTEXT listener on {@code port}; they must then include
     * one on that port, which the probes and the admin client use.
     */
    BrokerProcess start(int port, Path dataDir, Map<String, String> overrides, Path log) throws IOException {
        List<String> cmd = new ArrayList<>(prefix);
        Map<String, String> all = new TreeMap<>(extraOverrides);
        all.putAll(overrides);
        if (!all.containsKey("listeners")) {
            cmd.addAll(List.of("--port", Integer.toString(port)));
        }
        cmd.addAll(List.of("--data-dir", dataDir.toString()));
        all.forEach((k, v) -> {
            cmd.add("--override");
            cmd.add(k + "=" + v);
        });
        Files.createDirectories(log.toAbsolutePath().getParent());
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.environment().putAll(environment);
        long startNanos = System.nanoTime();
        return new BrokerProcess(pb.start(), port, startNanos, log);
    }
}
