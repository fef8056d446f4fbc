package io.brook.server.security;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.Signature;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * OAUTHBEARER's production validator, as Kafka's OAuthBearerValidatorCallbackHandler: the token is
 * a signed JWT whose signature is verified with a key of the provider's JSON Web Key Set, read
 * from {@code sasl.oauthbearer.jwks.endpoint.url} ({@code file://} or {@code http(s)://}). As
 * Kafka (which uses jose4j) checks a token:
 *
 * <ul>
 * <li>the algorithm is RS256, RS384, RS512, ES256, ES384 or ES512 ({@code none}, an unsigned
 *     token, is refused), and the key is chosen by the header's {@code kid} (without one: the
 *     only key of the algorithm's type);
 * <li>{@code exp} and {@code iat} are required; the token must not have expired and {@code nbf},
 *     when present, must have passed, each within {@code sasl.oauthbearer.clock.skew.seconds}
 *     (default 30); {@code exp} (its whole seconds, as jose4j reads it) also bounds the session
 *     the token authenticates ({@link SessionLifetime});
 * <li>{@code iss} must equal {@code sasl.oauthbearer.expected.issuer}, and {@code aud} must name
 *     one of {@code sasl.oauthbearer.expected.audience} (a list). As in Kafka 4.4, a listener
 *     that sets neither refuses to start unless it opts out of the check by name:
 *     {@code sasl.oauthbearer.allow.unverified.issuer=true} accepts any issuer, or none, and
 *     {@code sasl.oauthbearer.allow.unverified.audience=true} any audience, or none; either
 *     opt-out is logged at WARN at start-up;
 * <li>the principal is the claim {@code sasl.oauthbearer.sub.claim.name} (default {@code sub}), a
 *     non-blank string; the scope claim {@code sasl.oauthbearer.scope.claim.name} (default
 *     {@code scope}), a string or a list, must not repeat a scope.
 * </ul>
 *
 * <p>The key set is read at start-up, and a broker whose key set cannot be read does not start, as
 * in Kafka. An {@code http(s)://} key set that does not answer (an I/O error or a status other
 * than 200) is tried again first, with the back-off of background reads below (Kafka 4.4's first
 * read retries three times, 180, 360 and 720 ms apart, on jose4j's schedule rather than these
 * settings); a {@code file://} one is read once, and a key set that answers with something that is
 * not a key set is not tried again. The key set is read again every
 * {@code sasl.oauthbearer.jwks.endpoint.refresh.ms} (default one hour) and when a token names a
 * key id the set does not hold (at most once per
 * {@code sasl.oauthbearer.jwks.endpoint.retry.backoff.ms}), in the background: the token that
 * named the unknown key is refused, as in Kafka, and a later one finds the new key. A background
 * read that fails is tried again as Kafka's refreshing key resolver tries it: after
 * {@code sasl.oauthbearer.jwks.endpoint.retry.backoff.ms} (default 100), doubling each time,
 * until {@code sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms} (default 10000) have passed
 * since the first try; the keys held until then stay in use.
 *
 * <p>An {@code https://} key set is fetched with the JDK's HTTP client, trusting the JDK's CAs,
 * or, as in Kafka, the trust store named by {@code ssl.truststore.location} (with
 * {@code .type}, default JKS, and {@code .password}) or {@code ssl.truststore.certificates} (PEM)
 * among the options of the listener's {@code oauthbearer.sasl.jaas.config}; the server's name is
 * verified. Thread-safe.
 */
final class JwksTokenValidator {

    private static final Logger LOG = LoggerFactory.getLogger(JwksTokenValidator.class);

    /** Kafka's default of {@code sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms}. */
    static final long DEFAULT_RETRY_BACKOFF_MAX_MS = 10_000;

    /** Kafka's callback handler class names that select this validator (the second is the older one). */
    static final Set<String> HANDLER_CLASSES = Set.of(
            "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler",
            "org.apache.kafka.common.security.oauthbearer.secured.OAuthBearerValidatorCallbackHandler");

    private final URI url;
    private final Clock clock;
    private final long skewMs;
    /** The issuer a token must name, or null when any is accepted. */
    private final String issuer;
    /**
     * The audiences of which a token must name one, or null when any is accepted; when empty, only
     * a token without an audience is (jose4j's default, which Kafka inherits).
     */
    private final Set<String> audiences;
    private final String subClaim;
    private final String scopeClaim;
    private final long refreshMs;
    private final long retryBackoffMs;
    private final long retryBackoffMaxMs;
    /** The TLS context of an https key set, or null for the JDK's default. */
    private final SSLContext tls;
    private final AtomicBoolean refreshing = new AtomicBoolean();
    private volatile JsonWebKeys keys;
    private volatile long loadedAtMs;
    private volatile long lastAttemptMs;

    /** How the first read waits between its tries: {@link Thread#sleep} but where a test moves a manual clock. */
    @FunctionalInterface
    interface Pause {
        void pause(long ms) throws InterruptedException;
    }

    JwksTokenValidator(String url, Clock clock, long skewMs, String issuer, Set<String> audiences, String subClaim,
            String scopeClaim, long refreshMs, long retryBackoffMs) {
        this(url, clock, skewMs, issuer, audiences, subClaim, scopeClaim, refreshMs, retryBackoffMs,
                Math.max(retryBackoffMs, DEFAULT_RETRY_BACKOFF_MAX_MS), null, Thread::sleep);
    }

    JwksTokenValidator(String url, Clock clock, long skewMs, String issuer, Set<String> audiences, String subClaim,
            String scopeClaim, long refreshMs, long retryBackoffMs, long retryBackoffMaxMs, SSLContext tls,
            Pause pause) {
        if (retryBackoffMaxMs < retryBackoffMs) {
            throw new IllegalArgumentException("sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms (" + retryBackoffMaxMs
                    + ") is less than sasl.oauthbearer.jwks.endpoint.retry.backoff.ms (" + retryBackoffMs + ")");
        }
        this.retryBackoffMaxMs = retryBackoffMaxMs;
        this.tls = tls;
        this.url = URI.create(url);
        String scheme = this.url.getScheme() == null ? "" : this.url.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("file") && !scheme.equals("http") && !scheme.equals("https")) {
            throw new IllegalArgumentException("sasl.oauthbearer.jwks.endpoint.url must be a file://, http:// or"
                    + " https:// URL, not " + url);
        }
        this.clock = clock;
        this.skewMs = skewMs;
        this.issuer = issuer;
        this.audiences = audiences;
        this.subClaim = subClaim;
        this.scopeClaim = scopeClaim;
        this.refreshMs = refreshMs;
        this.retryBackoffMs = retryBackoffMs;
        try {
            this.keys = scheme.equals("file") ? load() : loadAtStart(pause);
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalArgumentException("Cannot read the JWKS at sasl.oauthbearer.jwks.endpoint.url " + url
                    + ": " + e.getMessage(), e);
        }
        this.loadedAtMs = clock.millis();
        this.lastAttemptMs = loadedAtMs;
    }

    /**
     * The validator a listener's settings ask for, or null when its
     * {@code oauthbearer.sasl.server.callback.handler.class} is not Kafka's JWKS validator.
     */
    static JwksTokenValidator fromSettings(ListenerSettings settings, String listenerName, Clock clock,
            Map<String, String> jaasOptions) {
        return fromSettings(settings, listenerName, clock, jaasOptions, Thread::sleep);
    }

    /** {@link #fromSettings(ListenerSettings, String, Clock, Map)} whose first read waits with {@code pause}. */
    static JwksTokenValidator fromSettings(ListenerSettings settings, String listenerName, Clock clock,
            Map<String, String> jaasOptions, Pause pause) {
        String handler = settings.get("oauthbearer", "sasl.server.callback.handler.class");
        if (handler == null || handler.isBlank()) {
            return null;
        }
        if (!HANDLER_CLASSES.contains(handler.trim())) {
            throw new IllegalArgumentException("Listener " + listenerName + ": Brook's OAUTHBEARER validators are"
                    + " Kafka's unsecured default and " + HANDLER_CLASSES + ", not " + handler);
        }
        String url = settings.get("sasl.oauthbearer.jwks.endpoint.url");
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException("Listener " + listenerName + " validates OAUTHBEARER tokens against a"
                    + " JWKS but sasl.oauthbearer.jwks.endpoint.url is not set");
        }
        Set<String> audiences = new HashSet<>();
        String aud = settings.get("sasl.oauthbearer.expected.audience");
        if (aud != null) {
            for (String a : aud.split(",")) {
                if (!a.isBlank()) {
                    audiences.add(a.trim());
                }
            }
        }
        String issuer = settings.get("sasl.oauthbearer.expected.issuer");
        issuer = issuer == null || issuer.isBlank() ? null : issuer.trim();
        boolean anyAudience = audiences.isEmpty()
                && unverified(settings, listenerName, "sasl.oauthbearer.expected.audience", "audience (\"aud\")");
        boolean anyIssuer = issuer == null
                && unverified(settings, listenerName, "sasl.oauthbearer.expected.issuer", "issuer (\"iss\")");
        return new JwksTokenValidator(url.trim(), clock,
                number(settings, "sasl.oauthbearer.clock.skew.seconds", "30") * 1000,
                anyIssuer ? null : issuer, anyAudience ? null : Set.copyOf(audiences),
                settings.getOrDefault("sasl.oauthbearer.sub.claim.name", "sub").trim(),
                settings.getOrDefault("sasl.oauthbearer.scope.claim.name", "scope").trim(),
                number(settings, "sasl.oauthbearer.jwks.endpoint.refresh.ms", "3600000"),
                number(settings, "sasl.oauthbearer.jwks.endpoint.retry.backoff.ms", "100"),
                number(settings, "sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms",
                        Long.toString(DEFAULT_RETRY_BACKOFF_MAX_MS)),
                url.trim().regionMatches(true, 0, "https:", 0, 6) ? tls(jaasOptions, listenerName) : null, pause);
    }

    /**
     * The TLS context for an https key set from the JAAS options' {@code ssl.truststore.*} (Kafka
     * reads the HTTPS client's settings there), or null (the JDK's CAs) when they name none.
     */
    static SSLContext tls(Map<String, String> options, String listenerName) {
        return tls(options, listenerName, "the JWKS endpoint");
    }

    /** {@link #tls(Map, String)} for an https server the message calls {@code what}. */
    static SSLContext tls(Map<String, String> options, String listenerName, String what) {
        String location = options.get("ssl.truststore.location");
        String pem = options.get("ssl.truststore.certificates");
        if ((location == null || location.isBlank()) && (pem == null || pem.isBlank())) {
            return null;
        }
        try {
            KeyStore store;
            if (pem != null && !pem.isBlank()) {
                store = PemStores.trustStore(pem);
            } else {
                store = KeyStore.getInstance(options.getOrDefault("ssl.truststore.type", "JKS").trim());
                String password = options.get("ssl.truststore.password");
                try (InputStream in = Files.newInputStream(Path.of(location.trim()))) {
                    store.load(in, password == null ? null : password.toCharArray());
                }
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(store);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, tmf.getTrustManagers(), null);
            return ctx;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalArgumentException("Listener " + listenerName + ": cannot read the trust store for "
                    + what + " (ssl.truststore.* of the oauthbearer sasl.jaas.config): " + e.getMessage(), e);
        }
    }

    /**
     * Whether a listener without the claim check {@code expectedKey} may accept a token whatever
     * its {@code claim} says: only when {@code sasl.oauthbearer.allow.unverified.<claim>} says so
     * (logged at WARN); otherwise the listener does not start, as in Kafka 4.4.
     */
    private static boolean unverified(ListenerSettings settings, String listenerName, String expectedKey, String claim) {
        String name = claim.substring(0, claim.indexOf(' '));
        String allowKey = "sasl.oauthbearer.allow.unverified." + name;
        String v = settings.getOrDefault(allowKey, "false").trim();
        if (!v.equalsIgnoreCase("true") && !v.equalsIgnoreCase("false")) {
            throw new IllegalArgumentException("Invalid value '" + v + "' for configuration " + settings.source(allowKey)
                    + ": must be true or false");
        }
        if (!Boolean.parseBoolean(v)) {
            throw new IllegalArgumentException("Listener " + listenerName + " validates OAUTHBEARER tokens against a"
                    + " JWKS, so it needs " + expectedKey + " to check each token's " + claim + " claim, and it is"
                    + " not set. Set it, or set " + allowKey + "=true to accept tokens whatever their " + name + ".");
        }
        LOG.warn("Listener {} validates OAUTHBEARER tokens against a JWKS without {} ({}=true): it accepts a token"
                + " with any {}, or none", listenerName, expectedKey, allowKey, name);
        return true;
    }

    private static long number(ListenerSettings settings, String key, String defaultValue) {
        String v = settings.getOrDefault(key, defaultValue).trim();
        try {
            long n = Long.parseLong(v);
            if (n >= 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new IllegalArgumentException("Invalid value '" + v + "' for configuration " + settings.source(key)
                + ": must be a number, 0 or more");
    }

    private JsonWebKeys load() throws IOException {
        String json;
        if (url.getScheme().equalsIgnoreCase("file")) {
            json = BoundedBody.readFile(Path.of(url), BoundedBody.MAX_BYTES);
        } else {
            HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10));
            if (tls != null) {
                b.sslContext(tls);
            }
            HttpClient http = b.build();
            HttpResponse<String> r;
            try {
                r = http.send(HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(30))
                        .header("Accept", "application/json").GET().build(), BoundedBody.utf8(BoundedBody.MAX_BYTES));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
            if (r.statusCode() != 200) {
                throw new IOException("HTTP " + r.statusCode());
            }
            json = r.body();
        }
        return JsonWebKeys.parse(json);
    }

    /**
     * The first read of an http(s) key set: tried again after an I/O error (no answer, or a status
     * other than 200) after {@code retry.backoff.ms}, doubling each time, until {@code
     * retry.backoff.max.ms} have passed since the first try, by the clock or, should the clock not
     * move, by the waits alone. A key set that cannot be parsed is not tried again.
     */
    private JsonWebKeys loadAtStart(Pause pause) throws IOException {
        long startMs = clock.millis();
        long waitedMs = 0;
        for (int n = 1; ; n++) {
            try {
                return load();
            } catch (IOException e) {
                long leftMs = retryBackoffMaxMs - Math.max(waitedMs, clock.millis() - startMs);
                long waitMs = Math.min(retryBackoffMs << Math.min(n - 1, 30), leftMs);
                if (waitMs <= 0) {
                    throw new IOException(e.getMessage() + " (" + n + (n == 1 ? " try" : " tries")
                            + " within sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms " + retryBackoffMaxMs + ")", e);
                }
                LOG.info("Could not read the JWKS from {} (try {}): {}; trying again in {} ms", url, n, e.toString(),
                        waitMs);
                try {
                    pause.pause(waitMs);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while waiting to read the JWKS again", ie);
                }
                waitedMs += waitMs;
            }
        }
    }

    /** Reloads the key set in the background unless a reload runs or the last began within {@code minGapMs}. */
    private void refreshSoon(long minGapMs) {
        long now = clock.millis();
        if (now - lastAttemptMs < minGapMs || !refreshing.compareAndSet(false, true)) {
            return;
        }
        lastAttemptMs = now;
        attempt(1, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(retryBackoffMaxMs), CompletableFuture::runAsync);
    }

    /**
     * One try of a background refresh ({@code n} counts them, from 1); a failed one schedules the
     * next after Kafka's back-off ({@code retry.backoff.ms} × 2^(n-1), no later than {@code
     * endNanos}) or gives up. The refresh stays marked as running until it succeeded or gave up.
     */
    private void attempt(int n, long endNanos, java.util.concurrent.Executor executor) {
        executor.execute(() -> {
            try {
                keys = load();
                loadedAtMs = clock.millis();
                refreshing.set(false);
            } catch (IOException | RuntimeException e) {
                long leftMs = TimeUnit.NANOSECONDS.toMillis(endNanos - System.nanoTime());
                long waitMs = Math.min(retryBackoffMs << Math.min(n - 1, 30), leftMs);
                if (waitMs <= 0) {
                    LOG.warn("Could not refresh the JWKS from {} ({} tries): {}; keeping the keys held", url, n,
                            e.toString());
                    refreshing.set(false);
                } else {
                    LOG.info("Could not refresh the JWKS from {} (try {}): {}; trying again in {} ms", url, n,
                            e.toString(), waitMs);
                    attempt(n + 1, endNanos, CompletableFuture.delayedExecutor(waitMs, TimeUnit.MILLISECONDS));
                }
            }
        });
    }

    /** Whether a background refresh is running (or waiting to try again). */
    boolean refreshRunning() {
        return refreshing.get();
    }

    /** Checks {@code token}; returns its principal and expiry. */
    BearerToken validate(String token) throws AuthenticationFailure {
        if (clock.millis() - loadedAtMs >= refreshMs) {
            refreshSoon(retryBackoffMs);
        }
        String[] parts = token.split("\\.", -1);
        if (parts.length != 3) {
            throw fail("the token is not a JWS (header.claims.signature)");
        }
        Map<String, Object> header;
        Map<String, Object> claims;
        byte[] signature;
        try {
            header = FlatJson.parseObject(decode(parts[0]));
            claims = FlatJson.parseObject(decode(parts[1]));
            signature = Base64.getUrlDecoder().decode(parts[2]);
        } catch (IllegalArgumentException e) {
            throw fail("malformed token: " + e.getMessage());
        }
        String alg = header.get("alg") instanceof String a ? a : "";
        String kty;
        String jca;
        switch (alg) {
            case "RS256", "RS384", "RS512" -> {
                kty = "RSA";
                jca = "SHA" + alg.substring(2) + "withRSA";
            }
            case "ES256", "ES384", "ES512" -> {
                kty = "EC";
                jca = "SHA" + alg.substring(2) + "withECDSAinP1363Format";
            }
            default -> throw fail("the token's algorithm " + (alg.isEmpty() ? "(none)" : alg) + " is not accepted"
                    + " (RS256, RS384, RS512, ES256, ES384, ES512)");
        }
        if (signature.length == 0) {
            throw fail("the token is not signed");
        }
        String kid = header.get("kid") instanceof String k ? k : null;
        JsonWebKeys.Key key = keys.find(kid, kty);
        if (key == null) {
            refreshSoon(retryBackoffMs);
            throw fail("no " + kty + " key " + (kid == null ? "for a token without kid" : "with kid " + kid)
                    + " in the JWKS");
        }
        if (key.alg() != null && !key.alg().equals(alg)) {
            throw fail("the key " + kid + " is for " + key.alg() + ", not " + alg);
        }
        try {
            Signature verifier = Signature.getInstance(jca);
            verifier.initVerify(key.key());
            verifier.update((parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII));
            if (!verifier.verify(signature)) {
                throw fail("invalid signature");
            }
        } catch (GeneralSecurityException e) {
            throw fail("invalid signature");
        }
        return checkClaims(claims);
    }

    private BearerToken checkClaims(Map<String, Object> claims) throws AuthenticationFailure {
        long now = clock.millis();
        if (!(claims.get("exp") instanceof Double exp)) {
            throw fail("the token has no exp claim");
        }
        if (now - skewMs >= (long) (exp * 1000)) {
            throw fail("the token expired");
        }
        if (!(claims.get("iat") instanceof Double iat) || iat < 0) {
            throw fail("the token has no iat claim");
        }
        if (claims.containsKey("nbf") && (!(claims.get("nbf") instanceof Double nbf) || now + skewMs < (long) (nbf * 1000))) {
            throw fail("the token is not valid yet (nbf)");
        }
        if (issuer != null && !issuer.equals(claims.get("iss"))) {
            throw fail("the token's issuer is not " + issuer);
        }
        Object aud = claims.get("aud");
        List<?> tokenAudiences = aud instanceof List<?> l ? l : aud instanceof String s ? List.of(s) : List.of();
        if (audiences != null && !audiences.isEmpty()) {
            boolean match = false;
            for (Object a : tokenAudiences) {
                match |= audiences.contains(a);
            }
            if (!match) {
                throw fail("the token's audience is none of " + audiences);
            }
        } else if (audiences != null && aud != null) {
            throw fail("the token has an audience but sasl.oauthbearer.expected.audience is not set");
        }
        if (!(claims.get(subClaim) instanceof String principal) || principal.isBlank()) {
            throw fail("the token has no " + subClaim + " claim");
        }
        Object scope = claims.get(scopeClaim);
        Collection<?> scopes = scope instanceof List<?> l ? l : scope instanceof String s ? List.of(s) : List.of();
        if (new HashSet<>(scopes).size() != scopes.size()) {
            throw fail("the token's " + scopeClaim + " claim repeats a scope");
        }
        // the expiry in whole seconds, as jose4j (Kafka's JWT library) reads a NumericDate
        return new BearerToken(principal.trim(), Math.min((long) exp.doubleValue(), Long.MAX_VALUE / 1000) * 1000);
    }

    private static String decode(String part) {
        return new String(Base64.getUrlDecoder().decode(part), StandardCharsets.UTF_8);
    }

    private static AuthenticationFailure fail(String why) {
        return new AuthenticationFailure("Authentication failed: " + why);
    }
}
