package io.brook.server.security;

import static io.brook.server.security.JwksTokenValidatorTest.RSA;
import static io.brook.server.security.JwksTokenValidatorTest.claims;
import static io.brook.server.security.JwksTokenValidatorTest.generate;
import static io.brook.server.security.JwksTokenValidatorTest.jwks;
import static io.brook.server.security.JwksTokenValidatorTest.rsaJwk;
import static io.brook.server.security.JwksTokenValidatorTest.token;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.brook.server.TestKeyStores;
import io.brook.testkit.Await;
import io.brook.testkit.MutableClock;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyStore;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JWKS fetched from an {@code https://} endpoint (the JDK's HttpsServer with a key made for
 * the test), trusted through the {@code ssl.truststore.*} options of the listener's OAUTHBEARER
 * JAAS configuration as in Kafka, refused when the server is not trusted, and a first read or a
 * refresh that fails tried again with Kafka's back-off until the endpoint answers (the first read's
 * waits on a manual clock).
 */
@Timeout(60)
class JwksHttpsTest {

    private static final String HANDLER = "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler";
    private static final KeyPair NEXT = generate("RSA", null);

    @TempDir
    static Path dir;
    private static Path keyStore;
    private static Path trustStore;

    private final MutableClock clock = new MutableClock(JwksTokenValidatorTest.NOW_S * 1000);
    private final AtomicReference<String> served = new AtomicReference<>(jwks(rsaJwk("r1", RSA)));
    private final AtomicInteger failuresLeft = new AtomicInteger();
    private final AtomicInteger requests = new AtomicInteger();
    /** The waits of the first read between its tries (each moves the manual clock). */
    private final List<Long> pauses = new CopyOnWriteArrayList<>();
    private HttpsServer server;

    @BeforeAll
    static void stores() throws Exception {
        keyStore = TestKeyStores.create(dir, "jwks-server", "CN=localhost", "dns:localhost,ip:127.0.0.1");
        trustStore = TestKeyStores.trustStore(dir, "trust", keyStore);
    }

    @BeforeEach
    void startServer() throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keyStore)) {
            ks.load(in, TestKeyStores.PASSWORD.toCharArray());
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, TestKeyStores.PASSWORD.toCharArray());
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf.getKeyManagers(), null, null);
        server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(ctx));
        server.createContext("/jwks", exchange -> {
            requests.incrementAndGet();
            boolean fail = failuresLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
            byte[] body = (fail ? "unavailable" : served.get()).getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(fail ? 503 : 200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
    }

    @AfterEach
    void stopServer() {
        server.stop(0);
    }

    private JwksTokenValidator validator(Map<String, String> jaasOptions, long backoffMs, long backoffMaxMs) {
        Map<String, String> raw = new HashMap<>();
        raw.put("listener.name.sasl_ssl.oauthbearer.sasl.server.callback.handler.class", HANDLER);
        raw.put("sasl.oauthbearer.jwks.endpoint.url", "https://127.0.0.1:" + server.getAddress().getPort() + "/jwks");
        raw.put("sasl.oauthbearer.expected.issuer", "https://issuer");
        raw.put("sasl.oauthbearer.expected.audience", "kafka");
        raw.put("sasl.oauthbearer.jwks.endpoint.retry.backoff.ms", Long.toString(backoffMs));
        raw.put("sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms", Long.toString(backoffMaxMs));
        return JwksTokenValidator.fromSettings(new ListenerSettings(raw, "SASL_SSL"), "SASL_SSL", clock, jaasOptions,
                ms -> {
                    pauses.add(ms);
                    clock.advance(ms);
                });
    }

    private static Map<String, String> trusting() {
        return Map.of("ssl.truststore.location", trustStore.toString(), "ssl.truststore.type", "PKCS12",
                "ssl.truststore.password", TestKeyStores.PASSWORD);
    }

    private String signed(String kid, KeyPair key, String sub) throws Exception {
        return token("RS256", kid, key.getPrivate(),
                claims(sub, "https://issuer", "kafka", JwksTokenValidatorTest.NOW_S + 600));
    }

    @Test
    void readsTheKeySetOverHttpsTrustingTheJaasTrustStore() throws Exception {
        JwksTokenValidator v = validator(trusting(), 100, 10_000);
        assertThat(v.validate(signed("r1", RSA, "alice")).principal()).isEqualTo("alice");
        assertThat(requests.get()).isEqualTo(1);
    }

    @Test
    void anEndpointItDoesNotTrustStopsTheStart() {
        assertThatThrownBy(() -> validator(Map.of(), 100, 10_000)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Cannot read the JWKS");
        assertThat(requests.get()).as("refused in the TLS handshake").isZero();
        assertThatThrownBy(() -> validator(trusting(), 200, 100)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("retry.backoff.max.ms");
    }

    @Test
    void theFirstReadIsTriedAgainWithBackOffUntilTheEndpointAnswers() throws Exception {
        failuresLeft.set(3);
        JwksTokenValidator v = validator(trusting(), 100, 10_000);
        assertThat(pauses).as("Kafka's doubling back-off, on the manual clock").containsExactly(100L, 200L, 400L);
        assertThat(requests.get()).as("three failed tries, one that answered").isEqualTo(4);
        assertThat(v.validate(signed("r1", RSA, "alice")).principal()).isEqualTo("alice");
    }

    @Test
    void theFirstReadGivesUpAfterTheMaximumBackOffAndTheStartFails() {
        failuresLeft.set(1_000);
        assertThatThrownBy(() -> validator(trusting(), 100, 1_000)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Cannot read the JWKS").hasMessageContaining("5 tries");
        assertThat(pauses).as("the last wait is what is left of the 1,000 ms").containsExactly(100L, 200L, 400L, 300L);
        assertThat(requests.get()).isEqualTo(5);
    }

    @Test
    void aFailedRefreshIsTriedAgainWithBackOffUntilTheEndpointAnswers() throws Exception {
        JwksTokenValidator v = validator(trusting(), 20, 10_000);
        served.set(jwks(rsaJwk("r1", RSA), rsaJwk("r2", NEXT)));
        failuresLeft.set(3);
        clock.advance(1000); // past the back-off between refreshes prompted by unknown keys
        String t = signed("r2", NEXT, "carol");
        assertThatThrownBy(() -> v.validate(t)).isInstanceOf(AuthenticationFailure.class).hasMessageContaining("kid r2");
        Await.until("the refresh got through after three failures", Duration.ofSeconds(10), () -> {
            try {
                return "carol".equals(v.validate(t).principal());
            } catch (AuthenticationFailure e) {
                return false;
            }
        });
        assertThat(requests.get()).as("the start, three failed tries, one that answered").isEqualTo(5);
    }

    @Test
    void aRefreshGivesUpAfterTheMaximumBackOffAndKeepsTheKeysItHeld() throws Exception {
        JwksTokenValidator v = validator(trusting(), 10, 300);
        failuresLeft.set(1_000);
        clock.advance(1000);
        assertThatThrownBy(() -> v.validate(signed("r2", NEXT, "carol"))).isInstanceOf(AuthenticationFailure.class);
        assertThat(v.refreshRunning()).isTrue();
        Await.until("the refresh gave up", Duration.ofSeconds(10), () -> !v.refreshRunning());
        // waits of 10, 20, 40, 80 ms and then the rest of the 300: a handful of tries, however long each takes
        assertThat(requests.get() - 1).isBetween(1, 7);
        assertThat(v.validate(signed("r1", RSA, "alice")).principal()).isEqualTo("alice");
    }
}
