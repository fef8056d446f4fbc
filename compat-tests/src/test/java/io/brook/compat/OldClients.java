package io.brook.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Provider;
import java.security.Security;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * Runs {@link OldClientScenario} with one stock kafka-clients release, in a class loader that
 * holds only that kafka-clients jar, slf4j, the test classes and whatever else the caller names
 * (parent: the platform class loader), so every call of the scenario links against that release,
 * and with its own SASL client code ({@link #removeSaslClientProviders}).
 * The older jars are copied to {@code target/old-kafka-clients} by the build (this module's pom),
 * never onto the class path; {@link #CURRENT} is the test class path's own kafka-clients.
 */
final class OldClients {

    /** The test class path's kafka-clients (4.4). */
    static final String CURRENT = "current";
    /** The releases the build copies, oldest first. */
    static final List<String> OLDER = List.of("2.8.2", "3.7.0", "3.9.1", "4.0.1");

    private OldClients() {
    }

    /**
     * Runs the scenario with kafka-clients {@code version} on input {@code in} ({@link
     * OldClientScenario} says which keys); {@code moreJars} names classes whose jars of the test
     * class path the client needs beside its own (Jackson for OAUTHBEARER's unsecured tokens).
     */
    @SuppressWarnings("unchecked") // OldClientScenario is such a function
    static Map<String, String> runScenario(String version, Map<String, String> in, String... moreJars)
            throws Exception {
        List<URL> urls = new ArrayList<>(List.of(clientsJar(version), jarOf("org/slf4j/Logger.class"),
                jarOf("org/slf4j/simple/SimpleLogger.class"), testClasses().toUri().toURL()));
        for (String c : moreJars) {
            urls.add(jarOf(c.replace('.', '/') + ".class"));
        }
        ClassLoader previous = Thread.currentThread().getContextClassLoader();
        List<Provider> installed = removeSaslClientProviders(null);
        try (URLClassLoader loader = new URLClassLoader("kafka-clients-" + version, urls.toArray(URL[]::new),
                ClassLoader.getPlatformClassLoader())) {
            // kafka-clients looks up configured classes (serializers, login modules) through the
            // context class loader
            Thread.currentThread().setContextClassLoader(loader);
            try {
                Object scenario = loader.loadClass(OldClientScenario.class.getName()).getDeclaredConstructor()
                        .newInstance();
                return ((Function<Map<String, String>, Map<String, String>>) scenario).apply(in);
            } finally {
                removeSaslClientProviders(loader);
            }
        } finally {
            Thread.currentThread().setContextClassLoader(previous);
            installed.forEach(Security::addProvider);
        }
    }

    /**
     * Kafka's SCRAM and OAUTHBEARER login modules install their SASL client factories as JVM-wide
     * security providers, once per class loader and only if none of the same name is installed:
     * left in place, the first kafka-clients of this JVM would serve every later one's logins (its
     * SCRAM code instead of theirs; its OAUTHBEARER factory refuses their callback handlers). So
     * each round runs with none installed, and those its class loader installed are removed after
     * it. Removes those of {@code loader}, or all when null; returns what it removed.
     */
    private static List<Provider> removeSaslClientProviders(ClassLoader loader) {
        List<Provider> removed = new ArrayList<>();
        for (Provider p : Security.getProviders()) {
            String name = p.getClass().getName();
            boolean kafkas = name.startsWith("org.apache.kafka.common.security.") && name.endsWith("SaslClientProvider");
            if (kafkas && (loader == null || p.getClass().getClassLoader() == loader)) {
                Security.removeProvider(p.getName());
                removed.add(p);
            }
        }
        return removed;
    }

    /**
     * Checks the output of a round of {@code count} records: both partitions seen, each record
     * produced and consumed exactly once and each partition in send order from offset 0, the
     * commit listed, the seek served, the topic deleted.
     */
    static void assertCompleteRound(Map<String, String> out, int count) {
        assertThat(out.get("partitionsFor")).isEqualTo("2");
        assertThat(out.get("partitions")).isEqualTo("2");
        List<String> expected = new ArrayList<>();
        for (int p = 0; p < 2; p++) {
            for (int i = p, offset = 0; i < count; i += 2, offset++) {
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
        assertThat(out.get("committed")).isEqualTo("0:" + count / 2 + ",1:" + count / 2);
        assertThat(out.get("afterSeek")).isEqualTo("1:v2");
        assertThat(out.get("deleted")).isEqualTo("true");
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
        URL url = OldClients.class.getClassLoader().getResource(resource);
        assertThat(url).as(resource).isNotNull();
        return ((JarURLConnection) url.openConnection()).getJarFileURL();
    }

    private static Path testClasses() {
        try {
            return Path.of(OldClients.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
