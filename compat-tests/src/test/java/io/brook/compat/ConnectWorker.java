package io.brook.compat;

import io.brook.testkit.FreePorts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A stock Kafka Connect worker in distributed mode, as {@code connect-distributed.sh} starts it:
 * a JVM of its own with the test class path (where the tests' connectors are), its config, offset
 * and status topics named after its group, and its REST API on a free port. The Connect tests
 * drive it through that API.
 */
final class ConnectWorker implements AutoCloseable {
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private final Process process;
    private final Path log;
    private final String rest;
    private final String groupId;

    private ConnectWorker(Process process, Path log, String rest, String groupId) {
        this.process = process;
        this.log = log;
        this.rest = rest;
        this.groupId = groupId;
    }

    /**
     * Starts a worker of group {@code groupId} against {@code bootstrap}, its files in {@code dir},
     * with {@code settings} added to its config; returns once its REST API answers.
     */
    static ConnectWorker start(Path dir, String bootstrap, String groupId, Map<String, String> settings)
            throws IOException {
        int port = FreePorts.next();
        List<String> lines = new ArrayList<>(List.of(
                "bootstrap.servers=" + bootstrap,
                "group.id=" + groupId,
                "key.converter=org.apache.kafka.connect.storage.StringConverter",
                "value.converter=org.apache.kafka.connect.storage.StringConverter",
                "config.storage.topic=" + groupId + "-configs",
                "offset.storage.topic=" + groupId + "-offsets",
                "status.storage.topic=" + groupId + "-status",
                "config.storage.replication.factor=1",
                "offset.storage.replication.factor=1",
                "status.storage.replication.factor=1",
                "offset.flush.interval.ms=500",
                "listeners=http://127.0.0.1:" + port));
        settings.forEach((k, v) -> lines.add(k + "=" + v));
        Path props = dir.resolve("worker.properties");
        Files.writeString(props, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
        Path log = dir.resolve("worker.log");
        List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m", "-cp", System.getProperty("java.class.path"), "-Dorg.slf4j.simpleLogger.defaultLogLevel=info",
                "org.apache.kafka.connect.cli.ConnectDistributed", props.toString());
        Process process = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        ConnectWorker worker = new ConnectWorker(process, log, "http://127.0.0.1:" + port, groupId);
        worker.await(Duration.ofSeconds(90), "the worker's REST API and a leader of its group", () -> {
            HttpResponse<String> r = worker.get("/connectors");
            return r != null && r.statusCode() == 200;
        });
        return worker;
    }

    /** The worker's group, the prefix of its topics and of its tasks' transactional ids. */
    String groupId() {
        return groupId;
    }

    /** {@link Groups#await}; on time-out the failure carries the end of the worker's log. */
    void await(Duration timeout, String what, BooleanSupplier done) {
        try {
            Groups.await(timeout, what, done);
        } catch (AssertionError e) {
            List<String> lines = lines(log);
            throw new AssertionError(e.getMessage() + "; the worker's log ends:\n"
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size())), e);
        }
    }

    /** A GET of the worker's REST API; null while it does not answer. */
    HttpResponse<String> get(String path) {
        return send(HttpRequest.newBuilder(URI.create(rest + path)).timeout(Duration.ofSeconds(10)).GET().build());
    }

    private static HttpResponse<String> send(HttpRequest request) {
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String configJson(Class<?> connectorClass, Map<String, String> config) {
        StringBuilder json = new StringBuilder("{\"connector.class\":\"" + connectorClass.getName()
                + "\",\"tasks.max\":\"1\"");
        config.forEach((k, v) -> json.append(",\"").append(k).append("\":\"").append(v).append('"'));
        return json.append('}').toString();
    }

    /** Creates connector {@code name} of one task; tries again while the worker's group rebalances. */
    void createConnector(String name, Class<?> connectorClass, Map<String, String> config) {
        String json = "{\"name\":\"" + name + "\",\"config\":" + configJson(connectorClass, config) + "}";
        // the worker answers 409 while its group rebalances: try again until it takes the connector
        await(Duration.ofSeconds(60), "the worker to create " + name, () -> {
            HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(rest + "/connectors"))
                    .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(json)).build());
            return r != null && (r.statusCode() == 201 || r.statusCode() == 409 && connectorExists(name));
        });
    }

    /** Replaces connector {@code name}'s config (its tasks get new configs and are restarted). */
    void reconfigure(String name, Class<?> connectorClass, Map<String, String> config) {
        String json = configJson(connectorClass, config);
        await(Duration.ofSeconds(60), "the worker to reconfigure " + name, () -> {
            HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(rest + "/connectors/" + name + "/config"))
                    .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                    .PUT(HttpRequest.BodyPublishers.ofString(json)).build());
            return r != null && r.statusCode() == 200;
        });
    }

    private boolean connectorExists(String name) {
        HttpResponse<String> r = get("/connectors/" + name);
        return r != null && r.statusCode() == 200;
    }

    /** Waits until connector {@code name} and its one task are RUNNING. */
    void awaitRunning(String name) {
        await(Duration.ofSeconds(60), name + " and its task RUNNING", () -> {
            HttpResponse<String> r = get("/connectors/" + name + "/status");
            // {"name":..,"connector":{"state":"RUNNING",..},"tasks":[{"id":0,"state":"RUNNING",..}],..}
            return r != null && r.statusCode() == 200
                    && r.body().replaceAll("\\s", "").matches(".*\"connector\":\\{\"state\":\"RUNNING\".*"
                            + "\"tasks\":\\[\\{\"id\":0,\"state\":\"RUNNING\".*");
        });
    }

    /** Waits until source connector {@code name}'s stored offset (KIP-875's GET offsets) says {@code next}. */
    void awaitSourceOffset(String name, int next) {
        await(Duration.ofSeconds(60), "the source's stored offset to reach " + next, () -> {
            HttpResponse<String> r = get("/connectors/" + name + "/offsets");
            return r != null && r.statusCode() == 200 && r.body().replaceAll("\\s", "").contains("\"next\":" + next);
        });
    }

    static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return List.of();
        }
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
