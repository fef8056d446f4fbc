package io.brook.server.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.brook.testkit.Await;
import io.brook.testkit.MutableClock;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tokens from an OAuth token endpoint (the JDK's HttpServer in the test): the client-credentials
 * request as Kafka's login sends it, the token reused until 80% of its lifetime, one fetch for
 * logins that ask at once, failures that name the reason but never the client secret, and a
 * {@code file:} token.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OAuthTokenEndpointTest {

    private static final long NOW_MS = 1_700_000_000_000L;
    private static final String SECRET = "hunter2-secret";

    @TempDir
    Path dir;

    private final MutableClock clock = new MutableClock(NOW_MS);
    private final List<String> authorizations = new CopyOnWriteArrayList<>();
    private final List<String> bodies = new CopyOnWriteArrayList<>();
    private final List<String> contentTypes = new CopyOnWriteArrayList<>();
    /** What the endpoint answers: a status and a body. */
    private final AtomicReference<Object[]> answer = new AtomicReference<>();
    /** When set, the endpoint waits for it before answering. */
    private final AtomicReference<CountDownLatch> hold = new AtomicReference<>();
    private HttpServer server;

    @BeforeEach
    void startServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/token", this::serve);
        server.start();
    }

    @AfterEach
    void stopServer() {
        CountDownLatch h = hold.get();
        if (h != null) {
            h.countDown();
        }
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }

    private void serve(HttpExchange x) throws IOException {
        authorizations.add(String.valueOf(x.getRequestHeaders().getFirst("Authorization")));
        contentTypes.add(String.valueOf(x.getRequestHeaders().getFirst("Content-Type")));
        bodies.add(new String(x.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
        CountDownLatch h = hold.get();
        if (h != null) {
            try {
                h.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        Object[] a = answer.get();
        byte[] body = ((String) a[1]).getBytes(StandardCharsets.UTF_8);
        x.getResponseHeaders().add("Content-Type", "application/json");
        x.sendResponseHeaders((Integer) a[0], body.length);
        try (OutputStream out = x.getResponseBody()) {
            out.write(body);
        }
    }

    private void answer(int status, String body) {
        answer.set(new Object[] {status, body});
    }

    /** A JWT of {@code sub} expiring at {@code expS} (its signature is not checked by the client). */
    static String jwt(String sub, long expS) {
        Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
        return b64.encodeToString("{\"alg\":\"RS256\",\"kid\":\"r1\"}".getBytes(StandardCharsets.UTF_8)) + "."
                + b64.encodeToString(("{\"sub\":\"" + sub + "\",\"iat\":" + (NOW_MS / 1000) + ",\"exp\":" + expS
                        + "}").getBytes(StandardCharsets.UTF_8)) + ".c2lnbmF0dXJl";
    }

    private static String accessToken(String token) {
        return "{\"access_token\":\"" + token + "\",\"token_type\":\"Bearer\",\"expires_in\":1000}";
    }

    private URI url() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/token");
    }

    private OAuthTokenEndpoint endpoint(URI url, String clientId, String scope, boolean urlencode, Duration read) {
        return new OAuthTokenEndpoint(url, clientId, SECRET, scope, urlencode, Duration.ofSeconds(5), read, null, 0.8,
                "sub", clock);
    }

    private OAuthTokenEndpoint endpoint() {
        return endpoint(url(), "brook-broker", null, false, Duration.ofSeconds(10));
    }

    private static String get(CompletableFuture<String> f) throws Exception {
        return f.get(20, TimeUnit.SECONDS);
    }

    @Test
    void postsTheClientCredentialsGrantWithBasicAuthentication() throws Exception {
        String token = jwt("broker", NOW_MS / 1000 + 1000);
        answer(200, accessToken(token));
        assertThat(get(endpoint(url(), "brook-broker", "kafka admin", false, Duration.ofSeconds(10)).token()))
                .isEqualTo(token);
        assertThat(authorizations).containsExactly("Basic " + Base64.getEncoder()
                .encodeToString(("brook-broker:" + SECRET).getBytes(StandardCharsets.UTF_8)));
        assertThat(bodies).containsExactly("grant_type=client_credentials&scope=kafka+admin");
        assertThat(contentTypes).containsExactly("application/x-www-form-urlencoded");
        // without a scope, and with sasl.oauthbearer.header.urlencode=true (a 201 answer is fine too)
        answer(201, accessToken(token));
        assertThat(get(endpoint(url(), "brook broker", null, true, Duration.ofSeconds(10)).token())).isEqualTo(token);
        assertThat(bodies.get(1)).isEqualTo("grant_type=client_credentials");
        assertThat(authorizations.get(1)).isEqualTo("Basic " + Base64.getEncoder()
                .encodeToString(("brook+broker:" + SECRET).getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void theTokenIsReusedUntilEightyPercentOfItsLifetime() throws Exception {
        OAuthTokenEndpoint endpoint = endpoint();
        String first = jwt("broker", NOW_MS / 1000 + 1000);
        answer(200, accessToken(first));
        assertThat(get(endpoint.token())).isEqualTo(first);
        assertThat(get(endpoint.token())).isEqualTo(first);
        clock.advance(799_000);
        assertThat(get(endpoint.token())).isEqualTo(first);
        assertThat(bodies).hasSize(1);
        String second = jwt("broker", NOW_MS / 1000 + 3000);
        answer(200, accessToken(second));
        clock.advance(1_000);
        assertThat(get(endpoint.token())).isEqualTo(second);
        assertThat(bodies).hasSize(2);
        // a token that has expired already is used once, not kept
        answer(200, accessToken(jwt("broker", NOW_MS / 1000)));
        clock.set(NOW_MS + 3_000_000);
        get(endpoint.token());
        get(endpoint.token());
        assertThat(bodies).hasSize(4);
    }

    @Test
    void loginsThatAskWhileAFetchRunsWaitForIt() throws Exception {
        OAuthTokenEndpoint endpoint = endpoint();
        String token = jwt("broker", NOW_MS / 1000 + 1000);
        answer(200, accessToken(token));
        CountDownLatch release = new CountDownLatch(1);
        hold.set(release);
        CompletableFuture<String> a = endpoint.token();
        CompletableFuture<String> b = endpoint.token();
        Await.until("the request at the endpoint", () -> bodies.size() == 1);
        assertThat(a).isNotDone();
        assertThat(b).isNotDone();
        release.countDown();
        assertThat(get(a)).isEqualTo(token);
        assertThat(get(b)).isEqualTo(token);
        assertThat(bodies).hasSize(1);
    }

    private static Throwable failure(CompletableFuture<String> f) {
        try {
            f.get(20, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        throw new AssertionError("the token future did not fail");
    }

    @Test
    void aRefusalNamesTheStatusAndTheOAuthErrorButNeverTheSecret() throws Exception {
        OAuthTokenEndpoint endpoint = endpoint();
        answer(401, "{\"error\":\"invalid_client\",\"error_description\":\"no client brook-broker with secret "
                + SECRET + "\"}");
        Throwable t = failure(endpoint.token());
        assertThat(t).isInstanceOf(AuthenticationFailure.class).hasMessageContaining("HTTP 401")
                .hasMessageContaining("invalid_client").hasMessageContaining("/token")
                .hasMessageNotContaining(SECRET);
        // nothing is cached: the next login asks again
        answer(200, accessToken(jwt("broker", NOW_MS / 1000 + 1000)));
        get(endpoint.token());
        assertThat(bodies).hasSize(2);
        assertThat(endpoint.toString() + endpoint.describe()).doesNotContain(SECRET);
    }

    @Test
    void answersThatHoldNoUsableTokenFail() {
        String[][] cases = {
            {"{\"token_type\":\"Bearer\"}", "without an access_token"},
            {"not json", "not JSON"},
            {accessToken("abc"), "not a signed JWT"},
            {accessToken(jwt("broker", NOW_MS / 1000 + 1000).replaceFirst("\\.[^.]*$", ".")), "not a signed JWT"},
            {accessToken(jwt("", NOW_MS / 1000 + 1000)), "no sub claim"},
        };
        for (String[] c : cases) {
            answer(200, c[0]);
            assertThat(failure(endpoint().token())).as(c[0]).isInstanceOf(AuthenticationFailure.class)
                    .hasMessageContaining(c[1]);
        }
    }

    @Test
    void anAnswerOrFileLongerThanTheBoundIsRefusedUnread() throws Exception {
        String padding = "x".repeat(BoundedBody.MAX_BYTES);
        answer(200, "{\"access_token\":\"" + jwt("broker", NOW_MS / 1000 + 1000) + "\",\"pad\":\"" + padding + "\"}");
        assertThat(failure(endpoint().token())).isInstanceOf(AuthenticationFailure.class)
                .hasMessageContaining("longer than the " + BoundedBody.MAX_BYTES + " bytes accepted");
        Path file = dir.resolve("big.jwt");
        Files.writeString(file, jwt("broker", NOW_MS / 1000 + 1000) + padding);
        assertThat(failure(new OAuthTokenEndpoint(file.toUri(), null, null, null, false, Duration.ofSeconds(1),
                Duration.ofSeconds(1), null, 0.8, "sub", clock).token())).isInstanceOf(AuthenticationFailure.class)
                .hasMessageContaining("more than the " + BoundedBody.MAX_BYTES + " accepted");
        // just under the bound is read
        answer(200, accessToken(jwt("broker", NOW_MS / 1000 + 1000)));
        assertThat(get(endpoint().token())).isNotEmpty();
    }

    @Test
    void aPayloadWithoutExpIsRefused() throws Exception {
        OAuthTokenEndpoint endpoint = endpoint();
        Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
        String noExp = b64.encodeToString("{\"alg\":\"RS256\"}".getBytes(StandardCharsets.UTF_8)) + "."
                + b64.encodeToString("{\"sub\":\"broker\"}".getBytes(StandardCharsets.UTF_8)) + ".c2ln";
        assertThatThrownBy(() -> endpoint.check(noExp)).hasMessageContaining("no exp claim");
        assertThat(endpoint.check(jwt("broker", 1_800_000_000L))).isEqualTo(1_800_000_000_000L);
    }

    @Test
    void anEndpointThatDoesNotAnswerInTimeOrAtAllFails() throws Exception {
        hold.set(new CountDownLatch(1));
        answer(200, accessToken(jwt("broker", NOW_MS / 1000 + 1000)));
        assertThat(failure(endpoint(url(), "brook-broker", null, false, Duration.ofMillis(200)).token()))
                .isInstanceOf(AuthenticationFailure.class).hasMessageContaining("cannot get a token from the token"
                        + " endpoint http://127.0.0.1:" + server.getAddress().getPort() + "/token")
                .hasMessageNotContaining(SECRET);
        int closedPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = s.getLocalPort();
        }
        URI nobody = URI.create("http://127.0.0.1:" + closedPort + "/token");
        assertThat(failure(endpoint(nobody, "brook-broker", null, false, Duration.ofSeconds(5)).token()))
                .isInstanceOf(AuthenticationFailure.class).hasMessageContaining("cannot get a token")
                .hasMessageNotContaining(SECRET);
    }

    @Test
    void aFileTokenIsReadWhenANewTokenIsDue() throws Exception {
        Path file = dir.resolve("token.jwt");
        String first = jwt("broker", NOW_MS / 1000 + 100);
        Files.writeString(file, first + "\n");
        OAuthTokenEndpoint endpoint = new OAuthTokenEndpoint(file.toUri(), null, null, null, false,
                Duration.ofSeconds(1), Duration.ofSeconds(1), null, 0.8, "sub", clock);
        assertThat(get(endpoint.token())).isEqualTo(first);
        String second = jwt("broker", NOW_MS / 1000 + 1000);
        Files.writeString(file, second);
        assertThat(get(endpoint.token())).as("still fresh").isEqualTo(first);
        clock.advance(81_000);
        assertThat(get(endpoint.token())).isEqualTo(second);
        assertThat(endpoint.client()).contains(file.toString());
        Files.delete(file);
        clock.advance(1_000_000);
        assertThat(failure(endpoint.token())).isInstanceOf(AuthenticationFailure.class)
                .hasMessageContaining("cannot get a token from the file");
    }
}
