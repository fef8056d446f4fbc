package io.brook.server.cluster.interbroker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.brook.server.Brook;
import io.brook.server.config.SecurityProtocol;
import io.brook.server.security.InterBrokerLogin;
import io.brook.server.security.JwksTestTokens;
import io.brook.wire.message.MetadataRequest;
import io.brook.wire.message.MetadataResponse;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The inter-broker client logging in with SASL/OAUTHBEARER as Kafka's brokers do, against
 * embedded Brooks whose SASL listener has the StandardAuthorizer and {@code User:broker} as super
 * user: with an unsecured token (the listener validating with Kafka's default, unsecured
 * validator), and with a signed token from an OAuth token endpoint (the JDK's HttpServer in the
 * test, checking the client's Basic credentials and grant) that the listener validates against a
 * JWKS. The endpoint is asked once for two connections; a wrong client secret fails the request
 * with the endpoint's refusal, without the secret; a token that expires is renewed on the same
 * connection before the session it bounds ends.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InterBrokerLoginOAuthTest {

    private static final InterBrokerSettings FAST = new InterBrokerSettings(10_000, 2, 1_000, 20, 200, 2_000);
    private static final String MODULE = "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required";
    private static final String SECRET = "right-secret";

    @TempDir
    static Path dir;

    private static EventLoopGroup loops;
    private static Brook unsecured;
    private static Brook signed;
    private static HttpServer tokenEndpoint;
    private static final AtomicInteger tokenRequests = new AtomicInteger();

    @BeforeAll
    static void start() throws Exception {
        loops = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
        unsecured = broker(Brook.builder());
        Path jwks = dir.resolve("jwks.json");
        Files.writeString(jwks, JwksTestTokens.jwks());
        signed = broker(Brook.builder()
                .config("listener.name.sasl_plaintext.oauthbearer.sasl.server.callback.handler.class",
                        "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler")
                .config("sasl.oauthbearer.jwks.endpoint.url", jwks.toUri().toString())
                .config("sasl.oauthbearer.expected.issuer", "https://issuer")
                .config("sasl.oauthbearer.expected.audience", "kafka"));
        tokenEndpoint = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        tokenEndpoint.createContext("/token", InterBrokerLoginOAuthTest::token);
        tokenEndpoint.start();
    }

    private static Brook broker(Brook.Builder b) {
        Brook brook = b.config("listeners", "SASL_PLAINTEXT://127.0.0.1:0")
                .config("sasl.enabled.mechanisms", "OAUTHBEARER")
                .config("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
                .config("super.users", "User:broker")
                .start();
        brook.createTopic("only-for-brokers", 1);
        return brook;
    }

    @AfterAll
    static void stop() throws Exception {
        tokenEndpoint.stop(0);
        signed.close();
        unsecured.close();
        loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    /** The client-credentials grant of {@code brook-broker}: a token for {@code broker} signed with the JWKS's key. */
    private static void token(HttpExchange x) throws IOException {
        tokenRequests.incrementAndGet();
        String body = new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        String expected = "Basic " + Base64.getEncoder()
                .encodeToString(("brook-broker:" + SECRET).getBytes(StandardCharsets.UTF_8));
        String answer;
        int status;
        if (!expected.equals(x.getRequestHeaders().getFirst("Authorization"))) {
            status = 401;
            answer = "{\"error\":\"invalid_client\",\"error_description\":\"client authentication failed\"}";
        } else if (!body.equals("grant_type=client_credentials&scope=kafka")) {
            status = 400;
            answer = "{\"error\":\"unsupported_grant_type\"}";
        } else {
            status = 200;
            try {
                answer = "{\"access_token\":\"" + JwksTestTokens.rs256("broker", "https://issuer", "kafka",
                        System.currentTimeMillis() / 1000 + 600) + "\",\"token_type\":\"Bearer\",\"expires_in\":600}";
            } catch (Exception e) {
                throw new IOException(e);
            }
        }
        byte[] bytes = answer.getBytes(StandardCharsets.UTF_8);
        x.getResponseHeaders().add("Content-Type", "application/json");
        x.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = x.getResponseBody()) {
            out.write(bytes);
        }
    }

    /** This node's settings for its SASL_PLAINTEXT inter-broker listener, logging in with OAUTHBEARER. */
    private static Map<String, String> settings(String jaasOptions) {
        Map<String, String> s = new HashMap<>();
        s.put("listeners", "SASL_PLAINTEXT://127.0.0.1:0");
        s.put("sasl.enabled.mechanisms", "OAUTHBEARER");
        s.put("sasl.mechanism.inter.broker.protocol", "OAUTHBEARER");
        s.put("listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config", MODULE + " " + jaasOptions + ";");
        return s;
    }

    private static InterBrokerLogin unsecuredLogin(String principal) {
        return InterBrokerLogin.of(settings("unsecuredLoginStringClaim_sub=\"" + principal + "\""
                + " unsecuredLoginExtension_traceId=\"42\""), "SASL_PLAINTEXT", SecurityProtocol.SASL_PLAINTEXT);
    }

    private static InterBrokerLogin endpointLogin(String secret) {
        Map<String, String> s = settings("clientId=\"brook-broker\" clientSecret=\"" + secret + "\" scope=\"kafka\"");
        s.put("listener.name.sasl_plaintext.oauthbearer.sasl.login.callback.handler.class",
                "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler");
        s.put("sasl.oauthbearer.token.endpoint.url",
                "http://127.0.0.1:" + tokenEndpoint.getAddress().getPort() + "/token");
        return InterBrokerLogin.of(s, "SASL_PLAINTEXT", SecurityProtocol.SASL_PLAINTEXT);
    }

    private static InterBrokerClient client(Brook brook, InterBrokerLogin login) {
        InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), brook.port());
        return new InterBrokerClient(loops, NioSocketChannel.class, id -> address, "broker-9", FAST, login);
    }

    private static CompletableFuture<MetadataResponse> metadata(InterBrokerClient c, int node) {
        return c.send(node, new MetadataRequest().topics(null), (short) 12, MetadataResponse::read);
    }

    @Test
    void logsInWithAnUnsecuredTokenAsItsPrincipal() throws Exception {
        try (InterBrokerClient c = client(unsecured, unsecuredLogin("broker"))) {
            assertThat(metadata(c, 1).get(30, TimeUnit.SECONDS).topics())
                    .extracting(MetadataResponse.MetadataResponseTopic::name).contains("only-for-brokers");
        }
        // the principal is the token's: another user is logged in, but sees no topic it may not describe
        try (InterBrokerClient c = client(unsecured, unsecuredLogin("alice"))) {
            assertThat(metadata(c, 1).get(30, TimeUnit.SECONDS).topics())
                    .extracting(MetadataResponse.MetadataResponseTopic::name).doesNotContain("only-for-brokers");
        }
    }

    @Test
    void logsInWithASignedTokenFromTheTokenEndpointFetchedOnceForTwoConnections() throws Exception {
        int before = tokenRequests.get();
        try (InterBrokerClient c = client(signed, endpointLogin(SECRET))) {
            // two node ids at the same address: two connections, each logging in
            CompletableFuture<MetadataResponse> one = metadata(c, 1);
            CompletableFuture<MetadataResponse> two = metadata(c, 2);
            assertThat(one.get(30, TimeUnit.SECONDS).topics()).extracting(MetadataResponse.MetadataResponseTopic::name)
                    .contains("only-for-brokers");
            assertThat(two.get(30, TimeUnit.SECONDS).topics()).extracting(MetadataResponse.MetadataResponseTopic::name)
                    .contains("only-for-brokers");
            assertThat(c.openConnections()).isEqualTo(2);
        }
        assertThat(tokenRequests.get() - before).as("one token for both connections").isEqualTo(1);
    }

    @Test
    void aTokenThatExpiresIsRenewedOnTheSameConnectionBeforeTheSessionEnds() throws Exception {
        // a token of 2 s bounds the session to 2 s (KIP-368): the broker would close the connection
        // at the first request after it; the client logs in again with a fresh token before that
        InterBrokerLogin login = InterBrokerLogin.of(settings("unsecuredLoginStringClaim_sub=\"broker\""
                + " unsecuredLoginLifetimeSeconds=\"2\""), "SASL_PLAINTEXT", SecurityProtocol.SASL_PLAINTEXT);
        try (InterBrokerClient c = client(unsecured, login)) {
            io.brook.testkit.Await.until("two renewals", java.time.Duration.ofSeconds(30), () -> {
                try {
                    assertThat(metadata(c, 1).get(10, TimeUnit.SECONDS).topics()).isNotEmpty();
                } catch (Exception e) {
                    throw new AssertionError("a request failed across a token renewal", e);
                }
                return c.reauthentications() >= 2;
            });
            assertThat(c.openConnections()).isEqualTo(1);
        }
    }

    @Test
    void aWrongClientSecretFailsTheRequestWithTheEndpointsRefusal() {
        String wrong = "wrong-secret-1234";
        try (InterBrokerClient c = client(signed, endpointLogin(wrong))) {
            assertThatThrownBy(() -> metadata(c, 1).get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).cause().isInstanceOf(InterBrokerException.class)
                    .hasMessageContaining("logging in to node 1 as brook-broker with OAUTHBEARER failed")
                    .hasMessageContaining("HTTP 401").hasMessageContaining("invalid_client")
                    .hasMessageNotContaining(wrong);
        }
    }

    @Test
    void aTokenTheNodeRefusesFailsTheRequestWithItsError() {
        // an unsigned token where a signed one is expected
        try (InterBrokerClient c = client(signed, unsecuredLogin("broker"))) {
            assertThatThrownBy(() -> metadata(c, 1).get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).cause().isInstanceOf(InterBrokerException.class)
                    .hasMessageContaining("refused the login of broker with OAUTHBEARER")
                    .hasMessageContaining("SASL_AUTHENTICATION_FAILED");
        }
    }
}
