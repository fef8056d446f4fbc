package io.brook.compat;

import io.brook.server.Brook;
import io.brook.testkit.TestCertificates;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Assumptions;

/**
 * A broker started for one test with the security it needs, described once in Kafka's server
 * property names (listeners with port 0 for any free port, {@code ssl.*}, {@code sasl.*} and
 * {@code listener.name.<l>.*} settings, {@code authorizer.class.name}, {@code super.users}, ...)
 * plus the SCRAM users that exist before any listener opens. Both brokers honour that description:
 *
 * <ul>
 *   <li>By default an embedded Brook gets the properties as they are; the SCRAM users go to
 *       {@code brook.sasl.scram.bootstrap.credentials}.
 *   <li>Under {@code run-against-kafka.sh}, which passes {@code -Dreference.kafka.libs=<Kafka's jars>},
 *       a fresh Apache Kafka process (KRaft, one node that is broker and controller) gets them as
 *       its {@code server.properties}, the SCRAM users through {@code kafka-storage format --add-scram}.
 *       Kafka needs a few settings beside them, added here and nowhere else: a PLAINTEXT
 *       {@code CONTROLLER} listener and a PLAINTEXT {@code INTERNAL} inter-broker listener on
 *       free ports (with an authorizer, {@code User:ANONYMOUS}, the principal of both, joins
 *       {@code super.users} so that the node may talk to itself), and a server login module for
 *       every enabled SCRAM or OAUTHBEARER mechanism (Kafka refuses to start without one; Brook
 *       needs none).
 *   <li>Against any other external cluster ({@code -Dbootstrap.servers} alone) the test is
 *       skipped: that cluster's security cannot be configured from here.
 * </ul>
 */
final class SecuredBroker implements AutoCloseable {

    private static final String LIBS = "reference.kafka.libs";

    private final Brook brook;
    private final KafkaProcess kafka;

    private SecuredBroker(Brook brook, KafkaProcess kafka) {
        this.brook = brook;
        this.kafka = kafka;
    }

    /**
     * Starts the broker on {@code dataDir} (kept for {@link #restart()}); skips the calling test
     * when the suite runs against a cluster it cannot configure.
     *
     * @param scramUsers entries such as {@code SCRAM-SHA-512=[name=admin,password=admin-secret]}
     */
    static SecuredBroker start(Path dataDir, Map<String, String> properties, String... scramUsers) {
        String external = System.getProperty("bootstrap.servers");
        String libs = System.getProperty(LIBS);
        boolean toKafka = libs != null && !libs.isBlank();
        Assumptions.assumeTrue(toKafka || external == null || external.isBlank(),
                "needs a broker configured for this test: the embedded Brook, or the reference Kafka that"
                        + " run-against-kafka.sh starts (-D" + LIBS + ")");
        if (toKafka) {
            Map<String, String> kafkaProperties = new java.util.HashMap<>(properties);
            kafkaProperties.keySet().removeIf(k -> k.startsWith("brook.")); // Brook's own keys
            return new SecuredBroker(null, new KafkaProcess(Path.of(libs), dataDir, kafkaProperties, List.of(scramUsers)));
        }
        Brook.Builder b = Brook.builder().dataDir(dataDir).config(properties);
        if (scramUsers.length > 0) {
            b.config("brook.sasl.scram.bootstrap.credentials", String.join(";", scramUsers));
        }
        return new SecuredBroker(b.start(), null);
    }

    /**
     * The broker the suites of other clients' own programs log in to (kafka-python, Sarama): a
     * PLAINTEXT and a SASL_SSL listener, SCRAM-SHA-256/512, PLAIN with the user alice, OAUTHBEARER
     * (unsecured tokens), an authorizer with the super users admin and ANONYMOUS (the PLAINTEXT
     * listener's principal), and the SCRAM users admin (SHA-512) and carol (SHA-256).
     */
    static SecuredBroker forClientPrograms(Path dataDir, TestCertificates.BrokerIdentity tls) {
        return start(dataDir, tls.settings(
                "listeners", "PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0",
                "sasl.enabled.mechanisms", "SCRAM-SHA-256,SCRAM-SHA-512,PLAIN,OAUTHBEARER",
                "listener.name.sasl_ssl.plain.sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required user_alice=\"alice-secret\";",
                "authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
                "super.users", "User:admin;User:ANONYMOUS"),
                "SCRAM-SHA-512=[name=admin,password=admin-secret]", "SCRAM-SHA-256=[name=carol,password=carol-secret]");
    }

    /** True when this is the reference Kafka (for the few places where the two are told apart). */
    boolean kafka() {
        return kafka != null;
    }

    /** host:port of the named listener. */
    String bootstrapServers(String listenerName) {
        return brook != null ? brook.bootstrapServers(listenerName) : kafka.address(listenerName);
    }

    /** Stops the broker cleanly and starts it again on the same data and ports. */
    void restart() {
        if (brook != null) {
            brook.restart();
        } else {
            kafka.stop();
            kafka.launch();
        }
    }

    @Override
    public void close() {
        if (brook != null) {
            brook.close();
        } else {
            kafka.kill();
        }
    }

    /** One Kafka node started as {@code kafka-server-start.sh} would start it. */
    private static final class KafkaProcess {

        private final Path libs;
        private final Path dir;
        private final Map<String, Integer> ports = new LinkedHashMap<>();
        private final Path config;
        private Process process;

        KafkaProcess(Path libs, Path dir, Map<String, String> properties, List<String> scramUsers) {
            this.libs = libs;
            this.dir = dir;
            this.config = dir.resolve("server.properties");
            try {
                Files.writeString(dir.resolve("log4j2.yaml"), """
                        Configuration:
                          Appenders:
                            Console:
                              name: STDOUT
                              PatternLayout:
                                pattern: "[%d] %p %m (%c)%n"
                          Loggers:
                            Root:
                              level: WARN
                              AppenderRef:
                                - ref: STDOUT
                        """);
                Properties server = serverProperties(properties);
                try (OutputStream out = Files.newOutputStream(config)) {
                    server.store(out, "written by compat-tests' SecuredBroker");
                }
                List<String> format = new ArrayList<>(List.of("kafka.tools.StorageTool", "format", "-t",
                        Uuid.randomUuid().toString(), "-c", config.toString()));
                for (String user : scramUsers) {
                    format.add("--add-scram");
                    format.add(user);
                }
                Process p = java(format).redirectOutput(dir.resolve("format.log").toFile()).start();
                if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
                    p.destroyForcibly();
                    throw new IllegalStateException("kafka-storage format failed: "
                            + Files.readString(dir.resolve("format.log")));
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            launch();
        }

        /** The test's properties with ports chosen, and what a KRaft node needs beside them. */
        private Properties serverProperties(Map<String, String> properties) throws IOException {
            Properties p = new Properties();
            p.putAll(properties);
            List<String> listeners = new ArrayList<>();
            for (String l : properties.getOrDefault("listeners", "PLAINTEXT://127.0.0.1:0").split(",")) {
                String name = l.substring(0, l.indexOf("://")).trim();
                int port = Integer.parseInt(l.substring(l.lastIndexOf(':') + 1).trim());
                ports.put(name.toUpperCase(Locale.ROOT), port == 0 ? freePort() : port);
                listeners.add(name + "://127.0.0.1:" + ports.get(name.toUpperCase(Locale.ROOT)));
            }
            int internal = freePort();
            int controller = freePort();
            ports.put("INTERNAL", internal);
            p.put("advertised.listeners", String.join(",", listeners) + ",INTERNAL://127.0.0.1:" + internal);
            p.put("listeners", String.join(",", listeners) + ",INTERNAL://127.0.0.1:" + internal
                    + ",CONTROLLER://127.0.0.1:" + controller);
            p.put("listener.security.protocol.map", properties.getOrDefault("listener.security.protocol.map",
                    "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL")
                    + ",INTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT");
            p.put("inter.broker.listener.name", "INTERNAL");
            p.put("controller.listener.names", "CONTROLLER");
            p.put("process.roles", "broker,controller");
            p.put("node.id", "1");
            p.put("controller.quorum.voters", "1@127.0.0.1:" + controller);
            p.put("log.dirs", dir.resolve("data").toString());
            p.put("offsets.topic.replication.factor", "1");
            p.put("transaction.state.log.replication.factor", "1");
            p.put("transaction.state.log.min.isr", "1");
            p.put("share.coordinator.state.topic.replication.factor", "1");
            p.put("share.coordinator.state.topic.min.isr", "1");
            p.put("group.initial.rebalance.delay.ms", "0");
            if (properties.containsKey("authorizer.class.name")) {
                String supers = properties.getOrDefault("super.users", "");
                p.put("super.users", (supers.isBlank() ? "" : supers + ";") + "User:ANONYMOUS");
            }
            for (String listener : ports.keySet()) {
                String prefix = "listener.name." + listener.toLowerCase(Locale.ROOT) + ".";
                String mechanisms = properties.getOrDefault(prefix + "sasl.enabled.mechanisms",
                        properties.getOrDefault("sasl.enabled.mechanisms", ""));
                for (String m : mechanisms.split(",")) {
                    String mechanism = m.trim().toLowerCase(Locale.ROOT);
                    String key = prefix + mechanism + ".sasl.jaas.config";
                    if (mechanism.startsWith("scram-")) {
                        p.putIfAbsent(key, "org.apache.kafka.common.security.scram.ScramLoginModule required;");
                    } else if (mechanism.equals("oauthbearer")) {
                        p.putIfAbsent(key, "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule"
                                + " required unsecuredLoginStringClaim_sub=\"broker\";");
                    }
                }
            }
            return p;
        }

        private static int freePort() throws IOException {
            return io.brook.testkit.FreePorts.next();
        }

        String address(String listenerName) {
            Integer port = ports.get(listenerName.toUpperCase(Locale.ROOT));
            if (port == null) {
                throw new IllegalArgumentException("no listener " + listenerName + " in " + ports.keySet());
            }
            return "127.0.0.1:" + port;
        }

        private ProcessBuilder java(List<String> args) {
            List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                    .toString(), "-Xms256m", "-Xmx768m", "-Dlog4j2.configurationFile=" + dir.resolve("log4j2.yaml"),
                    "-cp", libs.resolve("*").toString()));
            cmd.addAll(args);
            return new ProcessBuilder(cmd).redirectErrorStream(true);
        }

        /** Starts the node and waits until its inter-broker listener accepts connections. */
        void launch() {
            Path log = dir.resolve("kafka.log");
            try {
                process = java(List.of("kafka.Kafka", config.toString()))
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
                while (!accepts(ports.get("INTERNAL"))) {
                    if (!process.isAlive() || System.nanoTime() > deadline) {
                        process.destroyForcibly();
                        throw new IllegalStateException("Kafka did not start: "
                                + Files.readString(log, StandardCharsets.UTF_8));
                    }
                    // the process gives no signal but its port: look again after a moment
                    process.waitFor(200, TimeUnit.MILLISECONDS);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }

        private static boolean accepts(int port) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
                return true;
            } catch (IOException e) {
                return false;
            }
        }

        /** SIGKILL: the test is over and its data is thrown away. */
        void kill() {
            if (process != null) {
                process.destroyForcibly();
                try {
                    process.waitFor(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                process = null;
            }
        }

        /** SIGTERM (Kafka's controlled shutdown), then SIGKILL after 30 s. */
        void stop() {
            if (process == null) {
                return;
            }
            process.destroy();
            try {
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
            process = null;
        }
    }
}
