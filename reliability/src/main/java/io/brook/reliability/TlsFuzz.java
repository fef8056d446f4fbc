package io.brook.reliability;

import io.brook.storage.file.DurableFiles;
import io.brook.testkit.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * The wire fuzzer aimed at TLS: a broker with two SSL listeners, one on each of Brook's TLS
 * engines (BoringSSL through netty-tcnative, and the JDK's), both asking for client certificates
 * ({@code ssl.client.auth=requested}) and offering TLS 1.2 and 1.3, gets damaged handshakes,
 * handshakes dropped half-way, plaintext requests, damaged records inside established sessions,
 * renegotiations and Kafka requests mutated as the wire fuzzer mutates them
 * ({@link TlsFuzzClient}), while well-behaved clients with a trusted certificate work over TLS
 * beside them and must see no error and no stall. Checked besides the wire fuzzer's checks: the
 * broker completed no TLS 1.2 renegotiation, its sockets return to their count once the fuzzing
 * connections are gone, and Netty reported no leaked buffer (the engines' buffers are off-heap,
 * and BoringSSL's are native memory besides).
 */
final class TlsFuzz implements Scenario {
    static final String NO_LEAK = "broker's sockets back to where they were";
    static final String NO_RENEGOTIATION = "no TLS 1.2 renegotiation completed; those on idle sessions refused";
    static final String HANDSHAKES = "TLS sessions established";
    static final String ANSWERED = "every handshake answered or refused";

    private static final String GOOD_TOPIC = "tls-fuzz-good";
    private static final int SOCKET_SLACK = 4;

    static Fuzzers.Size full() {
        return new Fuzzers.Size(50, 200_000, Duration.ofMinutes(5), Duration.ofSeconds(10));
    }

    static Fuzzers.Size quick() {
        return new Fuzzers.Size(50, 30_000, Duration.ofMinutes(1), Duration.ofSeconds(10));
    }

    static Fuzzers.Size test() {
        return new Fuzzers.Size(8, 4_000, Duration.ofSeconds(25), Duration.ofSeconds(10));
    }

    private final Fuzzers.Size size;

    TlsFuzz(Fuzzers.Size size) {
        this.size = size;
    }

    @Override
    public String name() {
        return "tls-fuzz";
    }

    @Override
    public String size() {
        return size.describe();
    }

    @Override
    public void run(Env env, ScenarioResult result) throws Exception {
        Path data = env.work().resolve("tls-fuzz");
        DurableFiles.deleteRecursively(data);
        Files.createDirectories(data);
        Path keys = env.work().resolve("tls-fuzz-keys");
        DurableFiles.deleteRecursively(keys);
        Files.createDirectories(keys);
        TestCertificates certs = new TestCertificates(keys);
        Path brokerKeys = certs.keyStore("broker", "localhost");
        Path clientKeys = certs.keyStore("client", "tls-fuzz-client");
        Path strangerKeys = certs.keyStore("stranger", "tls-fuzz-stranger");
        Path clientTrust = certs.trustStore("client-trust", brokerKeys);
        Path brokerTrust = certs.trustStore("broker-trust", clientKeys);
        TlsFuzzPlan plan = new TlsFuzzPlan(clientTrust, clientKeys, strangerKeys, TestCertificates.PASSWORD);

        int port = Env.freePort();
        int opensslPort = Env.freePort();
        int jdkPort = Env.freePort();
        BrokerProcess broker = env.launcher().start(port, data,
                brokerSettings(port, opensslPort, jdkPort, brokerKeys, brokerTrust),
                env.out().resolve("tls-fuzz-broker.log"));
        try (Admin admin = Clients.admin(broker.bootstrap()); RssSampler rss = new RssSampler(broker.pid())) {
            ReadyProbe.awaitReady(broker, Duration.ofSeconds(120));
            admin.createTopics(List.of(new NewTopic(FrameCorpus.TOPIC, 1, (short) 1), new NewTopic(GOOD_TOPIC, 2, (short) 1)))
                    .all().get(30, TimeUnit.SECONDS);
            GoodClients good = new GoodClients("127.0.0.1:" + opensslPort, clientSettings(clientTrust, clientKeys),
                    GOOD_TOPIC, 2, "tls-good-group").start(Duration.ofSeconds(60));
            Map<String, Long> filesBefore = OpenFiles.of(broker.pid());
            result.note("seed " + env.seed() + "; SSL listeners on BoringSSL (port " + opensslPort + ") and the JDK's engine ("
                    + jdkPort + "), client certificates requested; " + plan.hellos().size()
                    + " recorded ClientHellos; the well-behaved clients use the BoringSSL listener with a trusted"
                    + " certificate; broker: " + env.launcher().description());

            TlsFuzzClient.TlsCounters tls = new TlsFuzzClient.TlsCounters();
            boolean alive = Fuzzers.run(env, result, broker, size, () -> good.acked() + " good records acknowledged",
                    (seed, budget, deadline, counters) -> new TlsFuzzClient(List.of(opensslPort, jdkPort), plan, seed,
                            budget, deadline, counters, tls));
            result.figure("TLS handshakes completed", tls.handshakes.get(), "");
            result.figure("TLS handshakes refused", tls.handshakesRefused.get(), "");
            result.figure("TLS handshakes slower than " + TlsFuzzClient.SLOW_HANDSHAKE_MS + " ms", tls.slowHandshakes.get(), "");
            result.figure("slowest TLS handshake", tls.longestHandshakeNanos.get() / 1e6, "ms");
            result.figure("TLS 1.2 renegotiations tried", tls.renegotiationsTried.get(), "");
            result.figure("of them neither refused nor answered within " + TlsFuzzClient.HANDSHAKE_WAIT_MS
                    + " ms on sessions that sent requests before (one may still be in the broker)",
                    tls.renegotiationsUnanswered.get(), "");
            result.figure("errors of the fuzzer's own TLS engine", tls.clientErrors.get()
                    + (tls.firstClientError.get() == null ? "" : "; the first: " + tls.firstClientError.get()));
            if (!alive) {
                return;
            }
            result.check(HANDSHAKES, tls.handshakes.get() > 0, tls.handshakes.get() + " sessions");
            result.check(ANSWERED, tls.handshakesUnanswered.get() == 0, tls.handshakesUnanswered.get()
                    + " handshakes got neither an answer nor a close within " + TlsFuzzClient.HANDSHAKE_WAIT_MS
                    + " ms (BoringSSL " + unanswered(tls, opensslPort) + ", JDK " + unanswered(tls, jdkPort) + ")");
            result.check(NO_RENEGOTIATION, tls.renegotiationsCompleted.get() == 0
                    && tls.idleRenegotiationsUnanswered.get() == 0, tls.renegotiationsCompleted.get()
                    + " of " + tls.renegotiationsTried.get() + " attempts completed; of the "
                    + tls.idleRenegotiationsTried.get() + " on idle sessions " + tls.idleRenegotiationsUnanswered.get()
                    + " neither refused nor answered within " + TlsFuzzClient.HANDSHAKE_WAIT_MS + " ms"
                    + (tls.firstRenegotiation.get() == null ? "" : "; the first: " + tls.firstRenegotiation.get()));
            OpenFiles.checkSocketsReturn(result, NO_LEAK, broker.pid(), filesBefore, SOCKET_SLACK);
            Fuzzers.finish(env, result, broker, good, size, rss, name());
        } finally {
            broker.close();
        }
        if (result.status() != ScenarioResult.Status.FAIL) {
            DurableFiles.deleteRecursively(data);
            DurableFiles.deleteRecursively(keys);
        } else {
            result.note("data directory kept for inspection: " + data);
        }
    }

    private static long unanswered(TlsFuzzClient.TlsCounters tls, int port) {
        AtomicLong n = tls.handshakesUnansweredByPort.get(port);
        return n == null ? 0 : n.get();
    }

    /**
     * PLAINTEXT on {@code port} (the probes and the admin); SSL on {@code opensslPort} with
     * BoringSSL and on {@code jdkPort} with the JDK's engine (listener {@code JDK}), client
     * certificates requested and trusted from {@code trust}.
     */
    private static Map<String, String> brokerSettings(int port, int opensslPort, int jdkPort, Path keys, Path trust) {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("listeners", "PLAINTEXT://127.0.0.1:" + port + ",SSL://127.0.0.1:" + opensslPort + ",JDK://127.0.0.1:" + jdkPort);
        s.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,SSL:SSL,JDK:SSL");
        s.put("inter.broker.listener.name", "PLAINTEXT");
        s.put("ssl.keystore.type", "PKCS12");
        s.put("ssl.keystore.location", keys.toString());
        s.put("ssl.keystore.password", TestCertificates.PASSWORD);
        s.put("ssl.truststore.type", "PKCS12");
        s.put("ssl.truststore.location", trust.toString());
        s.put("ssl.truststore.password", TestCertificates.PASSWORD);
        s.put("ssl.client.auth", "requested");
        s.put("ssl.enabled.protocols", "TLSv1.2,TLSv1.3");
        s.put("listener.name.jdk.brook.ssl.engine", "jdk");
        s.put("group.initial.rebalance.delay.ms", "0");
        return s;
    }

    private static Map<String, String> clientSettings(Path trust, Path keys) {
        return Map.of("security.protocol", "SSL",
                "ssl.truststore.type", "PKCS12", "ssl.truststore.location", trust.toString(),
                "ssl.truststore.password", TestCertificates.PASSWORD,
                "ssl.keystore.type", "PKCS12", "ssl.keystore.location", keys.toString(),
                "ssl.keystore.password", TestCertificates.PASSWORD, "ssl.key.password", TestCertificates.PASSWORD);
    }
}
