package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.brook.server.Brook;
import io.brook.server.RecordedRequest;
import java.io.IOException;
import java.net.JarURLConnection;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Stock kafka-clients releases older than the test class path's (2.8, 3.7, 3.9 beside 4.4) run
 * the same round — admin create/describe, idempotent acks=all produce, group consume with commit
 * and seek, committed offsets listed, topic deleted — each in a class loader that holds only that
 * kafka-clients jar, slf4j and the test classes (parent: the platform class loader), so
 * {@link OldClientScenario} links against the old client. The jars are copied to
 * {@code target/old-kafka-clients} by the build (this module's pom), never onto the class path.
 *
 * <p>Against the embedded Brook the broker's request log (the fault hooks' {@code
 * recordRequests()}) shows which API versions each client picked: each must pick, per API, the
 * newest version both it and the broker support — for Produce and Fetch below what 4.4 picks, so
 * the older request versions are exercised end to end. With {@code -Dbootstrap.servers} (e.g.
 * Apache Kafka) the round runs the same and only the request-log checks are skipped.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class OldKafkaClientsCompatTest {

    private static final int COUNT = 40;
    /** The test class path's kafka-clients (4.4). */
    private static final String CURRENT = "current";
    /** The newest Produce and Fetch versions each older release sends (Kafka's message definitions). */
    private static final Map<String, Map<ApiKeys, Short>> CLIENT_MAX = Map.of(
            "2.8.2", Map.of(ApiKeys.PRODUCE, (short) 9, ApiKeys.FETCH, (short) 12),
            "3.7.0", Map.of(ApiKeys.PRODUCE, (short) 10, ApiKeys.FETCH, (short) 16),
            "3.9.1", Map.of(ApiKeys.PRODUCE, (short) 11, ApiKeys.FETCH, (short) 17));

    private static Brook brook;
    private static String bootstrap;
    /** What the current client picked, per API key: the baseline the older ones are compared with. */
    private static Map<Short, Short> currentPicks;

    @BeforeAll
    static void start() {
        String external = System.getProperty("bootstrap.servers");
        if (external != null && !external.isBlank()) {
            bootstrap = external;
        } else {
            brook = Brook.builder().port(0).config(Groups.BROKER_CONFIGS).faults(true).start();
            brook.faults().recordRequests();
            bootstrap = brook.bootstrapServers();
        }
    }

    @AfterAll
    static void stop() {
        if (brook != null) {
            brook.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {CURRENT, "2.8.2", "3.7.0", "3.9.1"}) // the current first: it is the baseline
    void stockClientProducesConsumesCommitsAndAdministers(String version) throws Exception {
        String clientId = Groups.unique("clients-" + version);
        Map<String, String> out = runScenario(version, clientId);

        if (!version.equals(CURRENT)) {
            assertThat(out.get("clientVersion")).isEqualTo(version);
        }
        assertThat(out.get("partitionsFor")).isEqualTo("2");
        assertThat(out.get("partitions")).isEqualTo("2");
        // each partition's records in send order, offsets from 0, each record exactly once
        List<String> expected = new ArrayList<>();
        for (int p = 0; p < 2; p++) {
            for (int i = p, offset = 0; i < COUNT; i += 2, offset++) {
                expected.add(p + ":" + offset + ":v" + i);
            }
        }
        assertThat(out.get("produced").split(",")).containsExactlyInAnyOrderElementsOf(expected);
        List<String> consumed = List.of(out.get("consumed").split(","));
        assertThat(consumed).containsExactlyInAnyOrderElementsOf(expected);
        for (int p = 0; p < 2; p++) {
            String prefix = p + ":";
            assertThat(consumed.stream().filter(r -> r.startsWith(prefix)))
                    .containsExactlyElementsOf(expected.stream().filter(r -> r.startsWith(prefix)).toList());
        }
        assertThat(out.get("committed")).isEqualTo("0:" + COUNT / 2 + ",1:" + COUNT / 2);
        assertThat(out.get("afterSeek")).isEqualTo("1:v2");
        assertThat(out.get("deleted")).isEqualTo("true");

        if (brook == null) {
            return; // the request log is the embedded broker's
        }
        Map<Short, Short> picked = picks(clientId);
        System.out.println("kafka-clients " + out.get("clientVersion") + " picked " + named(picked));
        if (version.equals(CURRENT)) {
            setCurrentPicks(picked);
            return;
        }
        Map<Short, Short> baseline = currentPicks();
        for (Map.Entry<ApiKeys, Short> max : CLIENT_MAX.get(version).entrySet()) {
            short key = max.getKey().id;
            short expectedVersion = (short) Math.min(max.getValue(), baseline.get(key));
            assertThat(picked.get(key)).as("%s version of kafka-clients %s", max.getKey(), version)
                    .isEqualTo(expectedVersion);
        }
    }

    private static synchronized void setCurrentPicks(Map<Short, Short> picked) {
        currentPicks = picked;
    }

    /** The current client's picks, running its round once if this class has not yet. */
    private static synchronized Map<Short, Short> currentPicks() throws Exception {
        if (currentPicks == null) {
            String clientId = Groups.unique("clients-baseline");
            runScenario(CURRENT, clientId);
            currentPicks = picks(clientId);
        }
        return currentPicks;
    }

    /** The newest version of each API key the clients named {@code clientId-*} sent. */
    private static Map<Short, Short> picks(String clientId) {
        assumeTrue(brook != null, "the request log is the embedded Brook's");
        Map<Short, Short> max = new TreeMap<>();
        for (RecordedRequest r : brook.faults().recordedRequests()) {
            if (r.clientId() != null && r.clientId().startsWith(clientId + "-")) {
                max.merge(r.apiKey(), r.apiVersion(), (a, b) -> (short) Math.max(a, b));
            }
        }
        return max;
    }

    private static Map<String, Short> named(Map<Short, Short> byKey) {
        Map<String, Short> out = new TreeMap<>();
        byKey.forEach((k, v) -> out.put(ApiKeys.forId(k).name, v));
        return out;
    }

    @SuppressWarnings("unchecked") // OldClientScenario is such a function
    private static Map<String, String> runScenario(String version, String clientId) throws Exception {
        URL[] urls = {clientsJar(version), jarOf("org/slf4j/Logger.class"), jarOf("org/slf4j/simple/SimpleLogger.class"),
            testClasses().toUri().toURL()};
        Map<String, String> in = Map.of("bootstrap", bootstrap, "topic", clientId, "group", clientId,
                "clientId", clientId, "count", String.valueOf(COUNT));
        ClassLoader previous = Thread.currentThread().getContextClassLoader();
        try (URLClassLoader loader = new URLClassLoader("kafka-clients-" + version, urls,
                ClassLoader.getPlatformClassLoader())) {
            // kafka-clients looks up configured classes (serializers) through the context class loader
            Thread.currentThread().setContextClassLoader(loader);
            Object scenario = loader.loadClass(OldClientScenario.class.getName()).getDeclaredConstructor().newInstance();
            return ((Function<Map<String, String>, Map<String, String>>) scenario).apply(in);
        } finally {
            Thread.currentThread().setContextClassLoader(previous);
        }
    }

    private static URL clientsJar(String version) throws IOException {
        if (version.equals(CURRENT)) {
            return KafkaProducer.class.getProtectionDomain().getCodeSource().getLocation();
        }
        Path jar = testClasses().resolveSibling("old-kafka-clients").resolve("kafka-clients-" + version + ".jar");
        assertThat(Files.isRegularFile(jar)).as("%s (copied by the build's process-test-classes phase)", jar).isTrue();
        return jar.toUri().toURL();
    }

    /** The jar the test class path loads {@code resource} from. */
    private static URL jarOf(String resource) throws IOException {
        URL url = OldKafkaClientsCompatTest.class.getClassLoader().getResource(resource);
        assertThat(url).as(resource).isNotNull();
        return ((JarURLConnection) url.openConnection()).getJarFileURL();
    }

    private static Path testClasses() {
        try {
            return Path.of(OldKafkaClientsCompatTest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
