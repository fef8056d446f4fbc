package io.brook.server;

import io.netty.util.ResourceLeakDetector;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The {@code bin/brook} command: starts a broker in the foreground until SIGTERM/SIGINT, on
 * which it drains connections, flushes the logs and writes the clean-shutdown marker.
 *
 * <p>Settings are applied in this order, later ones winning: Brook's defaults
 * ({@code PLAINTEXT://127.0.0.1:9092}, data in {@code ./data}), the {@code --config} file,
 * each {@code --override}, then {@code --port} and {@code --data-dir}.
 */
@Command(name = "brook", mixinStandardHelpOptions = true, versionProvider = BrookMain.Version.class,
        description = "Runs a Kafka-compatible broker.", sortOptions = false)
public final class BrookMain implements Callable<Integer> {

    @Option(names = "--config", paramLabel = "FILE", description = "Kafka-style broker properties file.")
    Path configFile;

    @Option(names = "--port", paramLabel = "N", description = "Listen on 127.0.0.1:N (0 picks a free port).")
    Integer port;

    @Option(names = "--data-dir", paramLabel = "DIR", description = "Data directory (log.dirs).")
    Path dataDir;

    @Option(names = "--override", paramLabel = "KEY=VALUE", description = "A broker setting; repeatable.")
    Map<String, String> overrides = new LinkedHashMap<>();

    /** Starts and stops at once: bin/brook's class-data-sharing training run. */
    @Option(names = "--exit-after-start", hidden = true)
    boolean exitAfterStart;

    private final CountDownLatch stopped = new CountDownLatch(1);

    public static void main(String[] args) {
        // Netty's default leak detection records a stack trace for one buffer in 128: worth it in
        // tests (which keep it), not in a serving broker. -Dio.netty.leakDetection.level=... still wins.
        if (System.getProperty("io.netty.leakDetection.level") == null) {
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
        int code = new CommandLine(new BrookMain()).execute(args);
        if (code != 0) {
            System.exit(code);
        }
    }

    @Override
    public Integer call() throws Exception {
        Map<String, String> props = new LinkedHashMap<>();
        props.put(BrokerConfig.LISTENERS, "PLAINTEXT://127.0.0.1:9092");
        try {
            if (configFile != null) {
                props.putAll(load(configFile));
            }
        } catch (UncheckedIOException e) {
            System.err.println("brook: " + e.getMessage());
            return 2;
        }
        props.putAll(overrides);
        if (port != null) {
            props.put(BrokerConfig.LISTENERS, "PLAINTEXT://127.0.0.1:" + port);
        }
        if (dataDir != null) {
            props.remove(BrokerConfig.LOG_DIR);
            props.put(BrokerConfig.LOG_DIRS, dataDir.toString());
        }
        Brook brook;
        try {
            BrokerConfig resolved = BrokerConfig.parse(props);
            brook = Brook.builder().config(props).dataDir(resolved.dataDir()).start();
        } catch (IllegalArgumentException | IllegalStateException | UncheckedIOException e) {
            System.err.println("brook: " + e.getMessage());
            return 2;
        }
        if (exitAfterStart) {
            brook.close();
            return 0;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            brook.close();
            stopped.countDown();
        }, "brook-shutdown"));
        System.out.println("Brook serving " + brook.bootstrapServers() + " (node " + brook.context().nodeId()
                + ", cluster " + brook.clusterId() + "), data in " + brook.dataDir().toAbsolutePath().normalize());
        System.out.flush();
        stopped.await();
        return 0;
    }

    private static Map<String, String> load(Path file) {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read --config " + file + ": " + e, e);
        }
        Map<String, String> m = new LinkedHashMap<>();
        for (String name : p.stringPropertyNames()) {
            m.put(name, p.getProperty(name));
        }
        return m;
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = BrookMain.class.getPackage().getImplementationVersion();
            return new String[] {"Brook " + (v == null ? "(development build)" : v)};
        }
    }
}
