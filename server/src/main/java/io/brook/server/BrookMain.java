package io.brook.server;

import io.brook.server.cluster.ControllerNode;
import io.brook.server.config.BrokerConfig;
import io.brook.server.config.ConfigProviders;
import io.brook.server.launch.StartupExercise;
import io.netty.util.ResourceLeakDetector;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;

/**
 * The {@code bin/brook} command: starts a broker in the foreground until SIGTERM/SIGINT, on
 * which it drains connections, flushes the logs and writes the clean-shutdown marker.
 *
 * <p>Settings are applied in this order, later ones winning: Brook's defaults
 * ({@code PLAINTEXT://127.0.0.1:9092}, data in {@code ./data}), the {@code --config} file,
 * each {@code --override}, then {@code --port} and {@code --data-dir}.
 *
 * <p>The command line is parsed by hand rather than by an annotation-driven library: such a
 * library loads and reflects over a few hundred classes on every start, and start-up time is a
 * measured property of this command.
 */
public final class BrookMain {

    static final String USAGE = """
            Usage: brook [-hV] [--config=FILE] [--port=N] [--data-dir=DIR] [--override=KEY=VALUE]...
            Runs a Kafka-compatible broker.
                  --config=FILE          Kafka-style broker properties file.
                  --port=N               Listen on 127.0.0.1:N (0 picks a free port).
                  --data-dir=DIR         Data directory (log.dirs).
                  --override=KEY=VALUE   A broker setting; repeatable.
              -h, --help                 Show this help message and exit.
              -V, --version              Print version information and exit.
            """;

    Path configFile;
    Integer port;
    Path dataDir;
    final Map<String, String> overrides = new LinkedHashMap<>();
    /**
     * Starts, sends itself the first requests of a producer and a consumer over loopback, and
     * stops: bin/brook's class-data-sharing training run (hidden option).
     */
    boolean exitAfterStart;
    boolean help;
    boolean version;

    private final CountDownLatch stopped = new CountDownLatch(1);

    public static void main(String[] args) {
        // Netty's default leak detection records a stack trace for one buffer in 128: worth it in
        // tests (which keep it), not in a serving broker. -Dio.netty.leakDetection.level=... still wins.
        if (System.getProperty("io.netty.leakDetection.level") == null) {
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
        BrookMain command = new BrookMain();
        try {
            command.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.print(USAGE);
            System.exit(2);
            return;
        }
        int code;
        if (command.help) {
            System.out.print(USAGE);
            code = 0;
        } else if (command.version) {
            System.out.println(version());
            code = 0;
        } else {
            try {
                code = command.call();
            } catch (Exception e) {
                e.printStackTrace();
                code = 1;
            }
        }
        if (code != 0) {
            System.exit(code);
        }
    }

    /**
     * Reads the options ({@code --name value} or {@code --name=value}) into the fields.
     *
     * @throws IllegalArgumentException for an unknown option, a missing or malformed value, or
     *     a positional argument
     */
    BrookMain parse(String... args) {
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            String name = arg;
            String value = null;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0) {
                name = arg.substring(0, eq);
                value = arg.substring(eq + 1);
            }
            switch (name) {
                case "-h", "--help" -> help = noValue(name, value);
                case "-V", "--version" -> version = noValue(name, value);
                case "--exit-after-start" -> exitAfterStart = noValue(name, value);
                case "--config", "--port", "--data-dir", "--override" -> {
                    if (value == null) {
                        if (i + 1 >= args.length) {
                            throw new IllegalArgumentException("Missing required parameter for option '" + name + "'");
                        }
                        value = args[++i];
                    }
                    option(name, value);
                }
                default -> throw new IllegalArgumentException(arg.startsWith("-")
                        ? "Unknown option: '" + arg + "'" : "Unmatched argument: '" + arg + "'");
            }
        }
        return this;
    }

    private static boolean noValue(String name, String value) {
        if (value != null) {
            throw new IllegalArgumentException("Option '" + name + "' takes no value");
        }
        return true;
    }

    private void option(String name, String value) {
        switch (name) {
            case "--config" -> configFile = Path.of(value);
            case "--data-dir" -> dataDir = Path.of(value);
            case "--port" -> {
                try {
                    port = Integer.valueOf(value.trim());
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("Invalid value for option '--port': '" + value
                            + "' is not an int");
                }
            }
            default -> { // --override
                int eq = value.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException("Value for option '--override' should be in KEY=VALUE format"
                            + " but was " + value);
                }
                overrides.put(value.substring(0, eq), value.substring(eq + 1));
            }
        }
    }

    int call() throws Exception {
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
        Map<String, String> settings;
        try {
            settings = ConfigProviders.resolve(props);
        } catch (IllegalArgumentException e) {
            System.err.println("brook: " + e.getMessage());
            return 2;
        }
        if (BrokerConfig.controllerOnly(settings)) {
            return runController(settings);
        }
        Brook brook;
        try {
            BrokerConfig resolved = BrokerConfig.parse(settings);
            brook = Brook.builder().config(settings).dataDir(resolved.dataDir()).commandLine().start();
        } catch (IllegalArgumentException | IllegalStateException | UncheckedIOException e) {
            System.err.println("brook: " + e.getMessage());
            return 2;
        }
        if (exitAfterStart) {
            try {
                StartupExercise.run(new InetSocketAddress(InetAddress.getLoopbackAddress(), brook.port()));
            } catch (IOException | RuntimeException e) {
                System.err.println("brook: the start-up exercise failed: " + e);
            }
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

    /** A controller-only node (docs/cluster.md, section 6c): a voter of the metadata quorum, no broker. */
    private int runController(Map<String, String> props) throws InterruptedException {
        ControllerNode node;
        try {
            node = ControllerNode.start(props, ControllerNode.dataDir(props), null);
        } catch (IllegalArgumentException | IllegalStateException | IOException e) {
            System.err.println("brook: " + e.getMessage());
            return 2;
        }
        if (exitAfterStart) {
            closeQuietly(node);
            return 0;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            closeQuietly(node);
            stopped.countDown();
        }, "brook-shutdown"));
        System.out.println("Brook controller node " + node.nodeId() + " of cluster " + node.clusterId()
                + " (process.roles=controller: no client listener), voters " + node.voters() + ", data in "
                + ControllerNode.dataDir(props).toAbsolutePath().normalize());
        System.out.flush();
        stopped.await();
        return 0;
    }

    private static void closeQuietly(ControllerNode node) {
        try {
            node.close();
        } catch (IOException e) {
            System.err.println("brook: stopping the controller node: " + e);
        }
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

    static String version() {
        String v = BrookMain.class.getPackage().getImplementationVersion();
        return "Brook " + (v == null ? "(development build)" : v);
    }
}
