package io.brook.compat;

import io.brook.server.BrookMain;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.Node;

/**
 * A Brook cluster of several nodes, each in a process of its own, as {@code bin/brook --config
 * nodeN.properties} starts them: {@code java -cp <the test class path> io.brook.server.BrookMain
 * --config nodeN.properties}, the JVM being the node itself, so that {@link #kill} is a crash.
 *
 * <p>The nodes' properties are the example files of {@code docs/examples/cluster/} when they
 * exist (so that the tests check the documented example), else the same settings written here:
 * Kafka's KRaft names ({@code process.roles=broker,controller}, {@code node.id}, {@code
 * controller.quorum.voters}, {@code controller.listener.names}, {@code listeners}, {@code
 * log.dirs}) and Brook's {@code cluster.id}. Either way every port in {@code listeners}, {@code
 * advertised.listeners}, {@code controller.quorum.voters} and {@code brook.http.listener} is
 * replaced by a free loopback port (the same port everywhere it appears), {@code log.dirs} by the
 * node's own directory, and the test's overrides are set last.
 *
 * <p>Everything lives under {@code target/cluster-tests/<name>/}: {@code nodeN.properties},
 * {@code nodeN/data}, and {@code nodeN.log} (standard output and error, appended across
 * restarts). {@link #close()} kills every process still running and deletes the data; the logs
 * and properties stay for a failed test to be read, and {@link #logTails(int)} prints them into
 * a failure message. Readiness is waited for with a deadline: the node's own Metadata answer
 * lists it (it registered and the controller unfenced it); a process that exits before that
 * fails the wait at once, with its log.
 */
final class ProcessCluster implements AutoCloseable {

    static final Path EXAMPLES = Path.of("..", "docs", "examples", "cluster");
    static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    /** The port of a {@code host:port} in a list of listeners or voters. */
    private static final Pattern PORT = Pattern.compile(":(\\d+)(?=\\s*(,|$))");
    /** What a node logs once the controller unfenced its registration (the broker's ClusterBroker). */
    private static final String UNFENCED = "is registered and unfenced";
    private static final Set<String> ADDRESS_KEYS = Set.of("listeners", "advertised.listeners",
            "controller.quorum.voters", "brook.http.listener");

    private final Path dir;
    private final Map<Integer, Properties> configs = new TreeMap<>();
    private final Map<Integer, Process> processes = new TreeMap<>();
    private final Map<Integer, String> bootstrap = new TreeMap<>();
    /** Where each node's log stood when it was last launched: readiness looks at what follows. */
    private final Map<Integer, Long> logStart = new TreeMap<>();

    private ProcessCluster(Path dir) {
        this.dir = dir;
    }

    /**
     * Writes the properties of {@code nodes} voters (ids 1..nodes), starts them all and waits
     * until each serves; {@code overrides} go into every node's properties.
     */
    static ProcessCluster start(String name, int nodes, Map<String, String> overrides) {
        return start(name, nodes, overrides, (id, p) -> { });
    }

    /**
     * As {@link #start(String, int, Map)}, then {@code perNode} changes each node's properties
     * (given its id) before they are written.
     */
    static ProcessCluster start(String name, int nodes, Map<String, String> overrides,
            BiConsumer<Integer, Properties> perNode) {
        Path dir = Path.of("target", "cluster-tests", name).toAbsolutePath();
        ProcessCluster cluster = new ProcessCluster(dir);
        try {
            deleteRecursively(dir);
            Files.createDirectories(dir);
            cluster.configure(nodes, overrides, perNode);
            for (int id : cluster.configs.keySet()) {
                cluster.launch(id);
            }
            for (int id : cluster.configs.keySet()) {
                cluster.awaitServing(id, START_TIMEOUT);
            }
            return cluster;
        } catch (IOException | RuntimeException | Error e) {
            String logs = cluster.logTails(40);
            cluster.close();
            throw new AssertionError("the " + nodes + "-node cluster did not start: " + e + "\n" + logs, e);
        }
    }

    private void configure(int nodes, Map<String, String> overrides, BiConsumer<Integer, Properties> perNode)
            throws IOException {
        Map<Integer, Integer> ports = new TreeMap<>(); // an example's port -> the free port it becomes
        for (int id = 1; id <= nodes; id++) {
            Properties p = template(id, nodes);
            for (String key : ADDRESS_KEYS) {
                String value = p.getProperty(key);
                if (value != null) {
                    p.setProperty(key, remap(value, ports));
                }
            }
            p.setProperty("log.dirs", dir.resolve("node" + id).resolve("data").toString());
            p.putIfAbsent("brook.http.listener", "127.0.0.1:0");
            p.putAll(overrides);
            perNode.accept(id, p);
            configs.put(id, p);
            writeConfig(id);
        }
    }

    /** The example's node{id}.properties, or the same settings when the examples are not there. */
    private static Properties template(int id, int nodes) throws IOException {
        Path example = EXAMPLES.resolve("node" + id + ".properties");
        Properties p = new Properties();
        if (nodes <= 3 && Files.isRegularFile(example)) {
            try (Reader r = Files.newBufferedReader(example, StandardCharsets.UTF_8)) {
                p.load(r);
            }
            return p;
        }
        List<String> voters = new ArrayList<>();
        for (int v = 1; v <= nodes; v++) {
            voters.add(v + "@127.0.0.1:" + (9091 + 2 * v));
        }
        p.setProperty("process.roles", "broker,controller");
        p.setProperty("node.id", Integer.toString(id));
        p.setProperty("cluster.id", "brook-example-cluster");
        p.setProperty("controller.quorum.voters", String.join(",", voters));
        p.setProperty("controller.listener.names", "CONTROLLER");
        p.setProperty("listeners", "PLAINTEXT://127.0.0.1:" + (9090 + 2 * id) + ",CONTROLLER://127.0.0.1:"
                + (9091 + 2 * id));
        p.setProperty("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.setProperty("log.dirs", "data/node" + id);
        p.setProperty("brook.http.listener", "127.0.0.1:" + (9643 + id));
        return p;
    }

    /** {@code value} with every {@code host:port}'s port replaced, consistently across nodes. */
    private static String remap(String value, Map<Integer, Integer> ports) {
        Matcher m = PORT.matcher(value);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            int free = ports.computeIfAbsent(Integer.parseInt(m.group(1)), p -> freePort());
            m.appendReplacement(out, ":" + free);
        }
        m.appendTail(out);
        return out.toString();
    }

    static int freePort() {
        return io.brook.testkit.FreePorts.next();
    }

    private void writeConfig(int id) throws IOException {
        Properties p = configs.get(id);
        try (OutputStream out = Files.newOutputStream(config(id))) {
            p.store(out, "node " + id + " of a test cluster");
        }
        Matcher m = Pattern.compile("PLAINTEXT://([^,]+)").matcher(p.getProperty("listeners", ""));
        if (!m.find()) {
            throw new IllegalStateException("node " + id + " has no PLAINTEXT listener: " + p);
        }
        bootstrap.put(id, m.group(1));
    }

    Path config(int id) {
        return dir.resolve("node" + id + ".properties");
    }

    Path log(int id) {
        return dir.resolve("node" + id + ".log");
    }

    /** A copy of node {@code id}'s properties, e.g. as the start of a misconfigured extra node's. */
    Properties properties(int id) {
        Properties copy = new Properties();
        copy.putAll(configs.get(id));
        return copy;
    }

    Set<Integer> ids() {
        return configs.keySet();
    }

    /** host:port of node {@code id}'s client listener. */
    String bootstrapServers(int id) {
        return bootstrap.get(id);
    }

    /** Every node's client listener. */
    String bootstrapServers() {
        return String.join(",", bootstrap.values());
    }

    /** The client listeners of the nodes other than {@code id}. */
    String bootstrapServersExcept(int id) {
        List<String> others = new ArrayList<>();
        bootstrap.forEach((n, address) -> {
            if (n != id) {
                others.add(address);
            }
        });
        return String.join(",", others);
    }

    boolean alive(int id) {
        Process p = processes.get(id);
        return p != null && p.isAlive();
    }

    private void launch(int id) throws IOException {
        logStart.put(id, Files.exists(log(id)) ? Files.size(log(id)) : 0L);
        processes.put(id, startProcess(config(id), log(id)));
    }

    /**
     * Adds node {@code id} with {@code process.roles=broker} alone (as the example's
     * node4.properties): it finds the voters through {@code controller.quorum.bootstrap.servers},
     * listens for clients on a free port, and is waited for until it serves.
     */
    void addBrokerOnly(int id) throws IOException {
        Properties p = properties(configs.keySet().iterator().next());
        List<String> voters = new ArrayList<>();
        for (String v : p.getProperty("controller.quorum.voters").split(",")) {
            voters.add(v.substring(v.indexOf('@') + 1).trim());
        }
        p.remove("controller.quorum.voters");
        p.setProperty("process.roles", "broker");
        p.setProperty("node.id", Integer.toString(id));
        p.setProperty("controller.quorum.bootstrap.servers", String.join(",", voters));
        p.setProperty("listeners", "PLAINTEXT://127.0.0.1:" + freePort());
        p.setProperty("log.dirs", dir.resolve("node" + id).resolve("data").toString());
        p.setProperty("brook.http.listener", "127.0.0.1:0");
        configs.put(id, p);
        writeConfig(id);
        launch(id);
        awaitServing(id, START_TIMEOUT);
    }

    /**
     * Starts a node from a properties file of the caller's, outside this cluster's bookkeeping
     * (a misconfigured node that must be refused); the caller waits for it and destroys it.
     */
    Process startExtra(String name, Properties properties) throws IOException {
        Path file = dir.resolve(name + ".properties");
        try (OutputStream out = Files.newOutputStream(file)) {
            properties.store(out, name);
        }
        return startProcess(file, dir.resolve(name + ".log"));
    }

    private static Process startProcess(Path config, Path log) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xms32m", "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-Dio.netty.jfr.enabled=false", "-Dorg.slf4j.simpleLogger.showDateTime=true",
                "-Dorg.slf4j.simpleLogger.logFile=System.out", "-cp", classPath(), BrookMain.class.getName(),
                "--config", config.toString()));
        return new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    }

    private static String classPath() {
        List<String> entries = new ArrayList<>();
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!e.isEmpty() && Files.exists(Path.of(e))) {
                entries.add(e);
            }
        }
        return String.join(File.pathSeparator, entries);
    }

    /**
     * Waits until node {@code id} serves: this run of it logged that its registration is unfenced
     * (a restarted node's image first replays its previous registration, which may still look
     * unfenced) and its Metadata lists it; fails at once if the process exits.
     */
    void awaitServing(int id, Duration timeout) {
        try (Admin admin = admin(bootstrapServers(id))) {
            Groups.await(timeout, "node " + id + " to serve (registered and unfenced, in its own Metadata)", () -> {
                Process p = processes.get(id);
                if (p == null || !p.isAlive()) {
                    throw new AssertionError("node " + id + " exited (" + (p == null ? "never started" : "status "
                            + p.exitValue()) + ") before it served:\n" + tail(log(id), 60));
                }
                return logSinceLaunch(id).contains(UNFENCED) && brokerIds(admin).contains(id);
            });
        }
    }

    /** Waits until every running node's Metadata lists every running node. */
    void awaitAllServing(Duration timeout) {
        List<Integer> running = processes.keySet().stream().filter(this::alive).sorted().toList();
        for (int id : running) {
            try (Admin admin = admin(bootstrapServers(id))) {
                Groups.await(timeout, "node " + id + " to list the brokers " + running,
                        () -> brokerIds(admin).equals(running));
            }
        }
    }

    private String logSinceLaunch(int id) {
        try {
            byte[] all = Files.readAllBytes(log(id));
            int from = (int) Math.min(all.length, logStart.getOrDefault(id, 0L));
            return new String(all, from, all.length - from, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    /** The broker ids of a Metadata answer, or an empty list while the node does not answer. */
    static List<Integer> brokerIds(Admin admin) {
        try {
            return admin.describeCluster(new DescribeClusterOptions().timeoutMs(3_000)).nodes()
                    .get(5, TimeUnit.SECONDS).stream().map(Node::id).sorted().toList();
        } catch (Exception e) {
            return List.of();
        }
    }

    /** An admin client with short time-outs, for probing nodes that may be down. */
    static Admin admin(String bootstrapServers) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "3000");
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000");
        p.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "200");
        p.put(AdminClientConfig.RETRY_BACKOFF_MAX_MS_CONFIG, "200");
        return Admin.create(p);
    }

    /** SIGKILL: the node crashes (no clean shutdown, nothing flushed that was not already). */
    void kill(int id) {
        Process p = processes.remove(id);
        if (p != null) {
            p.destroyForcibly();
            waitFor(p, 30);
        }
    }

    /** SIGTERM: the node shuts down cleanly (SIGKILL after 30 s). */
    void stop(int id) {
        Process p = processes.remove(id);
        if (p != null) {
            p.destroy();
            if (!waitFor(p, 30)) {
                p.destroyForcibly();
                waitFor(p, 10);
            }
        }
    }

    /** Starts a stopped or killed node again, on its properties and data, and waits until it serves. */
    void restart(int id) {
        if (alive(id)) {
            throw new IllegalStateException("node " + id + " is running");
        }
        try {
            launch(id);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        awaitServing(id, START_TIMEOUT);
    }

    private static boolean waitFor(Process p, int seconds) {
        try {
            return p.waitFor(seconds, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The last {@code lines} lines of every node's log, for a failure message. */
    String logTails(int lines) {
        StringBuilder out = new StringBuilder();
        for (int id : configs.keySet()) {
            out.append("---- node ").append(id).append(" (").append(log(id)).append(")\n")
                    .append(tail(log(id), lines)).append('\n');
        }
        return out.toString();
    }

    static String tail(Path log, int lines) {
        try {
            if (!Files.exists(log)) {
                return "<no log>";
            }
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "<" + e + ">";
        }
    }

    /** Kills every node still running and deletes their data; the logs and properties stay. */
    @Override
    public void close() {
        for (int id : List.copyOf(processes.keySet())) {
            kill(id);
        }
        for (int id : configs.keySet()) {
            try {
                deleteRecursively(dir.resolve("node" + id));
            } catch (IOException e) {
                // a leftover under target/ is cleaned by the next run of the same test
            }
        }
    }

    private static void deleteRecursively(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
