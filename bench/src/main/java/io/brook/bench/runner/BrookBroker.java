package io.brook.bench.runner;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Brook started by {@code bin/brook --port P --data-dir D [--override k=v]...}. */
final class BrookBroker implements Broker {
    private final String label;
    private final Path root;
    private final Path dataDir;
    private final Path logFile;
    private final Map<String, String> overrides;
    private final String settings;

    BrookBroker(String label, Path root, Path dataDir, Path logFile, Map<String, String> overrides, String settings) {
        this.label = label;
        this.root = root;
        this.dataDir = dataDir;
        this.logFile = logFile;
        this.overrides = Map.copyOf(overrides);
        this.settings = settings;
    }

    @Override
    public String label() {
        return label;
    }

    @Override
    public String settings() {
        return settings;
    }

    @Override
    public void deleteData() {
        Files2.deleteTree(dataDir);
    }

    List<String> command(int port) {
        return command(port, overrides);
    }

    /** With {@code listeners} among the settings, no {@code --port} (which would replace them). */
    private List<String> command(int port, Map<String, String> settings) {
        List<String> cmd = new ArrayList<>(List.of(root.resolve("bin/brook").toString()));
        if (!settings.containsKey("listeners")) {
            cmd.addAll(List.of("--port", Integer.toString(port)));
        }
        cmd.addAll(List.of("--data-dir", dataDir.toString()));
        settings.forEach((k, v) -> {
            cmd.add("--override");
            cmd.add(k + "=" + v);
        });
        return cmd;
    }

    @Override
    public Running launch(int port) throws IOException {
        return launch(port, command(port));
    }

    @Override
    public Running launchTls(int port, int tlsPort, TlsSetup tls, String engine, boolean sasl) throws IOException {
        Map<String, String> settings = new java.util.LinkedHashMap<>(overrides);
        settings.put("listeners", "PLAINTEXT://127.0.0.1:" + port + "," + (sasl ? "SASL_SSL" : "SSL") + "://127.0.0.1:"
                + tlsPort);
        settings.putAll(tls.brokerSettings());
        if (sasl) {
            settings.put("sasl.enabled.mechanisms", TlsSetup.SASL_MECHANISM);
            settings.put("brook.sasl.scram.bootstrap.credentials", TlsSetup.scramCredential());
        }
        if (engine != null) {
            settings.put("brook.ssl.engine", engine);
        }
        return launch(port, command(port, settings));
    }

    private Running launch(int port, List<String> command) throws IOException {
        Files2.deleteTree(dataDir);
        java.nio.file.Files.createDirectories(dataDir.getParent());
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        // the launcher must not build during a measured start (bench/run builds beforehand)
        pb.environment().put("BROOK_SKIP_BUILD", "1");
        Process process = pb.start();
        return new Running() {
            @Override
            public long pid() {
                // bin/brook ends with exec: the launched process becomes the broker's JVM
                return process.pid();
            }

            @Override
            public boolean alive() {
                return process.isAlive();
            }

            @Override
            public String bootstrap() {
                return "127.0.0.1:" + port;
            }

            @Override
            public void close() {
                process.destroy(); // SIGTERM: drain, flush, clean-shutdown marker
                try {
                    if (!process.waitFor(60, TimeUnit.SECONDS)) {
                        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                    }
                } catch (InterruptedException e) {
                    process.destroyForcibly();
                    Thread.currentThread().interrupt();
                }
            }
        };
    }
}
