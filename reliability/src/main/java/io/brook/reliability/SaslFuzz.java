package io.brook.reliability;

import io.brook.storage.file.DurableFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * The wire fuzzer aimed at authentication: a broker with a SASL_PLAINTEXT listener offering
 * PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 and OAUTHBEARER (the unsecured validator) gets mutated
 * SASL exchanges at every stage ({@link SaslFuzzPlan}), while well-behaved clients that log in
 * with SCRAM-SHA-512 work beside them and must see no error and no stall. Checked besides the
 * wire fuzzer's checks: no password of either user is ever written to the broker's log, and once
 * the fuzzing connections are gone the broker holds no more sockets than before them (no
 * connection, half-way exchange or delayed close of a failed login leaks; {@link OpenFiles}).
 */
final class SaslFuzz implements Scenario {
    static final String NO_SECRETS = "no password in the broker's log";
    static final String NO_LEAK = "broker's sockets back to where they were";

    static final String FUZZ_USER = "fuzz";
    static final String GOOD_USER = "good";
    /** Distinct from anything else in a log, so that finding one means a leaked secret. */
    private static final String FUZZ_PASSWORD = "fuzz-secret-c41e2d";
    private static final String GOOD_PASSWORD = "good-secret-7f3a9b";
    private static final String GOOD_TOPIC = "sasl-fuzz-good";
    /** Sockets the broker may hold beyond its count before the fuzzing (a client reconnecting). */
    private static final int SOCKET_SLACK = 4;

    static Fuzzers.Size full() {
        return new Fuzzers.Size(50, 500_000, Duration.ofMinutes(5), Duration.ofSeconds(10));
    }

    static Fuzzers.Size quick() {
        return new Fuzzers.Size(50, 50_000, Duration.ofMinutes(1), Duration.ofSeconds(10));
    }

    static Fuzzers.Size test() {
        return new Fuzzers.Size(8, 6_000, Duration.ofSeconds(20), Duration.ofSeconds(10));
    }

    private final Fuzzers.Size size;

    SaslFuzz(Fuzzers.Size size) {
        this.size = size;
    }

    @Override
    public String name() {
        return "sasl-fuzz";
    }

    @Override
    public String size() {
        return size.describe();
    }

    @Override
    public void run(Env env, ScenarioResult result) throws Exception {
        Path data = env.work().resolve("sasl-fuzz");
        DurableFiles.deleteRecursively(data);
        Files.createDirectories(data);
        int port = Env.freePort();
        int saslPort = Env.freePort();
        BrokerProcess broker = env.launcher().start(port, data, brokerSettings(port, saslPort),
                env.out().resolve("sasl-fuzz-broker.log"));
        String sasl = "127.0.0.1:" + saslPort;
        try (Admin admin = Clients.admin(broker.bootstrap()); RssSampler rss = new RssSampler(broker.pid())) {
            ReadyProbe.awaitReady(broker, Duration.ofSeconds(120));
            admin.createTopics(List.of(new NewTopic(FrameCorpus.TOPIC, 1, (short) 1), new NewTopic(GOOD_TOPIC, 2, (short) 1)))
                    .all().get(30, TimeUnit.SECONDS);
            GoodClients good = new GoodClients(sasl, scramLogin(GOOD_USER, GOOD_PASSWORD), GOOD_TOPIC, 2, "sasl-good-group")
                    .start(Duration.ofSeconds(60));
            Map<String, Long> filesBefore = OpenFiles.of(broker.pid());
            result.note("seed " + env.seed() + "; SASL_PLAINTEXT listener with " + SaslFuzzPlan.MECHANISMS
                    + "; the well-behaved clients log in with SCRAM-SHA-512; broker: " + env.launcher().description());

            boolean alive = Fuzzers.run(env, result, broker, saslPort, new SaslFuzzPlan(FUZZ_USER, FUZZ_PASSWORD),
                    size, () -> good.acked() + " good records acknowledged");
            if (!alive) {
                return;
            }
            OpenFiles.checkSocketsReturn(result, NO_LEAK, broker.pid(), filesBefore, SOCKET_SLACK);
            Fuzzers.finish(env, result, broker, good, size, rss, name());
            broker.stop(60);
            checkNoSecrets(broker.log(), result);
        } finally {
            broker.close();
        }
        if (result.status() != ScenarioResult.Status.FAIL) {
            DurableFiles.deleteRecursively(data);
        } else {
            result.note("data directory kept for inspection: " + data);
        }
    }

    /**
     * PLAINTEXT on {@code port} (the probes and the admin), SASL_PLAINTEXT on {@code saslPort}:
     * PLAIN users from the JAAS setting, SCRAM users created at start-up, unsecured OAUTHBEARER
     * tokens, re-authentication allowed.
     */
    private static Map<String, String> brokerSettings(int port, int saslPort) {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("listeners", "PLAINTEXT://127.0.0.1:" + port + ",SASL_PLAINTEXT://127.0.0.1:" + saslPort);
        s.put("sasl.enabled.mechanisms", String.join(",", SaslFuzzPlan.MECHANISMS));
        s.put("listener.name.sasl_plaintext.plain.sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required user_" + FUZZ_USER + "=\"" + FUZZ_PASSWORD
                        + "\" user_" + GOOD_USER + "=\"" + GOOD_PASSWORD + "\";");
        s.put("listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config",
                "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;");
        s.put("brook.sasl.scram.bootstrap.credentials", "SCRAM-SHA-256=[name=" + FUZZ_USER + ",password=" + FUZZ_PASSWORD
                + "];SCRAM-SHA-512=[name=" + FUZZ_USER + ",password=" + FUZZ_PASSWORD + "];SCRAM-SHA-512=[name="
                + GOOD_USER + ",password=" + GOOD_PASSWORD + "]");
        s.put("connections.max.reauth.ms", "60000");
        s.put("group.initial.rebalance.delay.ms", "0");
        return s;
    }

    private static Map<String, String> scramLogin(String user, String password) {
        return Map.of("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", "SCRAM-SHA-512", "sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user + "\" password=\""
                        + password + "\";");
    }

    private static void checkNoSecrets(Path log, ScenarioResult result) throws IOException {
        List<String> found = new ArrayList<>();
        // the log may hold bytes clients sent: read it as Latin-1, which maps every byte
        try (Stream<String> lines = Files.lines(log, StandardCharsets.ISO_8859_1)) {
            for (String line : (Iterable<String>) lines::iterator) {
                if ((line.contains(FUZZ_PASSWORD) || line.contains(GOOD_PASSWORD)) && found.size() < 3) {
                    found.add(line.length() > 300 ? line.substring(0, 300) + "..." : line);
                }
            }
        }
        result.check(NO_SECRETS, found.isEmpty(), found.isEmpty() ? "neither user's password appears"
                : "a password appears, e.g. " + found);
    }
}
