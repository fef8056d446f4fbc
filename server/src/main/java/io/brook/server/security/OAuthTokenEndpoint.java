package io.brook.server.security;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import javax.net.ssl.SSLContext;

/**
 * OAUTHBEARER tokens from an OAuth 2 token endpoint, for this broker's own logins, as Kafka's
 * OAuthBearerLoginCallbackHandler gets them:
 *
 * <ul>
 * <li>{@code http(s)://}: the client-credentials grant, a POST of the form
 *     {@code grant_type=client_credentials} (with {@code &scope=<scope>}, URL-encoded, when a scope
 *     is configured) with HTTP Basic authentication, {@code base64(clientId:clientSecret)} in the
 *     standard (not URL-safe) alphabet; the id and secret are URL-encoded first when
 *     {@code sasl.oauthbearer.header.urlencode} is true (Kafka 3.9's setting, default false). The
 *     answer (status 200 or 201) is JSON whose {@code access_token} is the token. The JDK's
 *     HttpClient sends it asynchronously: nothing waits on the caller's thread, and the token
 *     arrives on the HttpClient's.
 * <li>{@code file:}: the token is the content of that file (trimmed), as Kafka's
 *     FileTokenRetriever reads it; read again whenever a new token is due.
 * </ul>
 *
 * <p>As Kafka's login does, the token is checked lightly before use, without its signature: three
 * non-empty sections, a payload with a numeric {@code exp} and a non-blank principal claim
 * ({@code sasl.oauthbearer.sub.claim.name}). The token is then reused for new connections until
 * {@code sasl.login.refresh.window.factor} (default 0.8) of its lifetime (from its receipt to
 * its {@code exp}) has passed; the next login after that gets a new one. Logins that need a token
 * while one is being fetched wait for that fetch. A fetch that fails fails the logins waiting for
 * it, with a message that never holds the client secret; nothing is cached, so the next login
 * tries again. Thread-safe.
 */
final class OAuthTokenEndpoint implements OAuthBearerLogin.TokenSource {

    /** A token and when it expires. */
    record Token(String value, long expiresAtMs) {
        @Override
        public String toString() {
            return "Token[expiresAtMs=" + expiresAtMs + "]";
        }
    }

    /** How much of an error answer's text a failure shows at most. */
    private static final int MAX_ERROR_CHARS = 300;

    private final URI url;
    /** The URL as messages show it: without user info, query or fragment. */
    private final String shownUrl;
    private final String clientId;
    private final String clientSecret;
    private final String scope;
    private final boolean urlencodeHeader;
    private final Duration connectTimeout;
    private final Duration readTimeout;
    /** The TLS context of an https endpoint, or null for the JDK's default. */
    private final SSLContext tls;
    private final double refreshWindowFactor;
    private final String subClaim;
    private final Clock clock;
    private HttpClient http;
    private Token cached;
    private long refreshAtMs;
    private CompletableFuture<Token> fetching;

    /**
     * {@code url} is {@code file:} (then the client fields may be null) or {@code http(s)://};
     * {@code scope} may be null.
     */
    OAuthTokenEndpoint(URI url, String clientId, String clientSecret, String scope, boolean urlencodeHeader,
            Duration connectTimeout, Duration readTimeout, SSLContext tls, double refreshWindowFactor, String subClaim,
            Clock clock) {
        this.url = url;
        this.shownUrl = url.getScheme().equalsIgnoreCase("file") ? url.getScheme() + ":" + url.getRawPath()
                : url.getScheme().toLowerCase(Locale.ROOT) + "://" + url.getHost()
                        + (url.getPort() < 0 ? "" : ":" + url.getPort()) + url.getRawPath();
        this.clientId = clientId;
        this.clientSecret = clientSecret;
        this.scope = scope;
        this.urlencodeHeader = urlencodeHeader;
        this.connectTimeout = connectTimeout;
        this.readTimeout = readTimeout;
        this.tls = tls;
        this.refreshWindowFactor = refreshWindowFactor;
        this.subClaim = subClaim;
        this.clock = clock;
    }

    boolean isFile() {
        return url.getScheme().equalsIgnoreCase("file");
    }

    /** The token to log in with: the cached one while it is fresh, else a new one (failing with AuthenticationFailure). */
    @Override
    public CompletableFuture<String> token() {
        return current().thenApply(Token::value);
    }

    synchronized CompletableFuture<Token> current() {
        if (cached != null && clock.millis() < refreshAtMs) {
            return CompletableFuture.completedFuture(cached);
        }
        CompletableFuture<Token> f = fetching;
        if (f == null) {
            // completed once the cache has the token, so that a login after it finds the token there
            CompletableFuture<Token> result = new CompletableFuture<>();
            fetching = result;
            CompletableFuture<Token> started;
            try {
                started = fetch();
            } catch (RuntimeException e) {
                started = CompletableFuture.failedFuture(new AuthenticationFailure(hide("cannot get a token from "
                        + where() + ": " + e)));
            }
            started.whenComplete((t, e) -> {
                fetched(result, t);
                if (e != null) {
                    result.completeExceptionally(e);
                } else {
                    result.complete(t);
                }
            });
            f = result;
        }
        return f.copy();
    }

    private synchronized void fetched(CompletableFuture<Token> f, Token t) {
        if (fetching != f) {
            return;
        }
        fetching = null;
        if (t != null) {
            long now = clock.millis();
            cached = t;
            refreshAtMs = now + (long) ((t.expiresAtMs() - now) * refreshWindowFactor);
        }
    }

    private CompletableFuture<Token> fetch() {
        CompletableFuture<String> body;
        if (isFile()) {
            body = CompletableFuture.supplyAsync(() -> {
                try {
                    return BoundedBody.readFile(Path.of(url), BoundedBody.MAX_BYTES).trim();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } else {
            body = httpClient().sendAsync(request(), BoundedBody.utf8(BoundedBody.MAX_BYTES)).thenApply(this::accessToken);
        }
        return body.handle((token, e) -> {
            if (e != null) {
                Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
                if (cause instanceof AuthenticationFailure) {
                    throw new CompletionException(cause);
                }
                throw new CompletionException(new AuthenticationFailure(hide("cannot get a token from " + where()
                        + ": " + (cause instanceof UncheckedIOException u ? u.getCause() : cause))));
            }
            try {
                return new Token(token, check(token));
            } catch (AuthenticationFailure f) {
                throw new CompletionException(f);
            }
        });
    }

    private synchronized HttpClient httpClient() {
        if (http == null) {
            HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(connectTimeout)
                    .followRedirects(HttpClient.Redirect.NEVER);
            if (tls != null) {
                b.sslContext(tls);
            }
            http = b.build();
        }
        return http;
    }

    HttpRequest request() {
        String form = "grant_type=client_credentials";
        if (scope != null && !scope.isBlank()) {
            form += "&scope=" + URLEncoder.encode(scope.trim(), StandardCharsets.UTF_8);
        }
        return HttpRequest.newBuilder(url).timeout(readTimeout)
                .header("Accept", "application/json")
                .header("Cache-Control", "no-cache")
                .header("Content-Type", "application/x-www-form-urlencoded")
                .header("Authorization", authorization())
                .POST(HttpRequest.BodyPublishers.ofString(form, StandardCharsets.UTF_8))
                .build();
    }

    /** The HTTP Basic credentials of the client. */
    String authorization() {
        String id = clientId.trim();
        String secret = clientSecret.trim();
        if (urlencodeHeader) {
            id = URLEncoder.encode(id, StandardCharsets.UTF_8);
            secret = URLEncoder.encode(secret, StandardCharsets.UTF_8);
        }
        return "Basic " + Base64.getEncoder().encodeToString((id + ":" + secret).getBytes(StandardCharsets.UTF_8));
    }

    /** The access token of a 200 or 201 answer; any other fails with the status and the OAuth error it names. */
    private String accessToken(HttpResponse<String> r) {
        String body = r.body() == null ? "" : r.body();
        if (r.statusCode() != 200 && r.statusCode() != 201) {
            throw new CompletionException(new AuthenticationFailure(hide("the token endpoint " + shownUrl + " answered HTTP "
                    + r.statusCode() + errorOf(body))));
        }
        Object token;
        try {
            token = FlatJson.parseObject(body).get("access_token");
        } catch (IllegalArgumentException e) {
            throw new CompletionException(new AuthenticationFailure("the token endpoint " + shownUrl + " answered HTTP "
                    + r.statusCode() + " with something that is not JSON (" + e.getMessage() + ")"));
        }
        if (!(token instanceof String s) || s.isBlank()) {
            throw new CompletionException(new AuthenticationFailure("the token endpoint " + shownUrl + " answered HTTP "
                    + r.statusCode() + " without an access_token"));
        }
        return s.trim();
    }

    /** What an error answer says (RFC 6749 section 5.2: {@code error}, {@code error_description}), briefly. */
    private static String errorOf(String body) {
        if (body.isBlank()) {
            return "";
        }
        String text;
        try {
            Map<String, Object> json = FlatJson.parseObject(body);
            Object error = json.get("error");
            Object description = json.get("error_description");
            if (error == null) {
                return "";
            }
            text = error + (description == null ? "" : ": " + description);
        } catch (IllegalArgumentException e) {
            return "";
        }
        return " (" + (text.length() > MAX_ERROR_CHARS ? text.substring(0, MAX_ERROR_CHARS) + "..." : text) + ")";
    }

    /**
     * The token's expiry (epoch ms) after Kafka's light check of a token a login is given: three
     * non-empty sections, a payload with {@code exp} and the principal claim. Its signature is the
     * other node's to verify.
     */
    long check(String token) throws AuthenticationFailure {
        String[] parts = token.split("\\.", -1);
        if (parts.length != 3 || parts[0].isEmpty() || parts[1].isEmpty() || parts[2].isEmpty()) {
            throw new AuthenticationFailure("the token from " + where() + " is not a signed JWT (header.payload.signature)");
        }
        Map<String, Object> claims;
        try {
            claims = FlatJson.parseObject(new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            throw new AuthenticationFailure("the token from " + where() + " has an unreadable payload: " + e.getMessage());
        }
        if (!(claims.get("exp") instanceof Double exp) || exp < 0) {
            throw new AuthenticationFailure("the token from " + where() + " has no exp claim");
        }
        if (!(claims.get(subClaim) instanceof String sub) || sub.isBlank()) {
            throw new AuthenticationFailure("the token from " + where() + " has no " + subClaim + " claim");
        }
        return Math.min((long) (exp * 1000), Long.MAX_VALUE / 2);
    }

    private String where() {
        return isFile() ? "the file " + shownUrl : "the token endpoint " + shownUrl;
    }

    /** {@code message} without the client secret, should an answer have repeated it. */
    private String hide(String message) {
        if (clientSecret == null || clientSecret.isBlank()) {
            return message;
        }
        String secret = clientSecret.trim();
        return message.replace(secret, "(hidden)")
                .replace(URLEncoder.encode(secret, StandardCharsets.UTF_8), "(hidden)");
    }

    /** Who logs in, for messages: the client id, or the holder of the token file. */
    String client() {
        return isFile() ? "the holder of the token in " + shownUrl : clientId.trim();
    }

    @Override
    public String describe() {
        return isFile() ? "the token in " + shownUrl : "tokens of client " + clientId + " from " + shownUrl;
    }
}
