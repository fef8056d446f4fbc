package io.brook.server.security;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;

/**
 * Where this broker gets the OAUTHBEARER tokens it logs in to the other nodes with
 * ({@link InterBrokerLogin}), as Kafka's brokers do. The settings are those of the inter-broker
 * listener for the mechanism: {@code listener.name.<l>.oauthbearer.<key>}, then
 * {@code listener.name.<l>.<key>}, then {@code <key>}.
 *
 * <ul>
 * <li>{@code sasl.login.callback.handler.class} not set (Kafka's default): unsecured tokens, for
 *     development, made from the options of {@code sasl.jaas.config} ({@link UnsecuredLoginTokens});
 *     the SASL extensions are its {@code unsecuredLoginExtension_<name>} options.
 * <li>{@code sasl.login.callback.handler.class} naming Kafka's OAuthBearerLoginCallbackHandler (or
 *     its older {@code secured} package's name): tokens from {@code sasl.oauthbearer.token.endpoint.url}
 *     ({@link OAuthTokenEndpoint}), {@code http(s)://} with the client-credentials grant as the JAAS
 *     options {@code clientId} and {@code clientSecret} (and {@code scope}, optional), or a
 *     {@code file:} holding the token. An {@code https://} endpoint is checked against the
 *     {@code ssl.truststore.*} options of the JAAS configuration, as in Kafka (else the JDK's
 *     CAs). {@code sasl.login.connect.timeout.ms} and {@code sasl.login.read.timeout.ms} bound the
 *     request: Kafka sets none and may wait for ever; Brook waits 10 s and 30 s when they are not
 *     set. {@code sasl.login.refresh.window.factor} (0.5 to 1.0, default 0.8),
 *     {@code sasl.oauthbearer.header.urlencode} (default false) and
 *     {@code sasl.oauthbearer.sub.claim.name} (default {@code sub}) are Kafka's. The SASL extensions
 *     are the {@code extension_<name>} options.
 * <li>Any other callback handler class is refused at start.
 * </ul>
 *
 * Extensions follow Kafka's rules: a name of letters only, other than {@code auth}; a value of
 * printable ASCII, spaces, tabs, CR and LF. Nothing here shows the client secret or a token.
 */
public final class OAuthBearerLogin {

    /** Where the tokens come from. */
    interface TokenSource {
        /** The token for one login; fails with {@link AuthenticationFailure} when there is none. */
        CompletableFuture<String> token();

        /** The source, for toString: never a secret. */
        String describe();
    }

    static final String MECHANISM = "OAUTHBEARER";
    static final String LOGIN_HANDLER_CONFIG = "sasl.login.callback.handler.class";
    static final String TOKEN_ENDPOINT_CONFIG = "sasl.oauthbearer.token.endpoint.url";
    /** Kafka's login callback handlers that get tokens from a token endpoint (the second is the older name). */
    static final Set<String> LOGIN_HANDLER_CLASSES = Set.of(
            "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler",
            "org.apache.kafka.common.security.oauthbearer.secured.OAuthBearerLoginCallbackHandler");
    static final int DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
    static final int DEFAULT_READ_TIMEOUT_MS = 30_000;
    private static final Pattern EXTENSION_NAME = Pattern.compile("[A-Za-z]+");
    private static final Pattern EXTENSION_VALUE = Pattern.compile("[\\x21-\\x7E \t\r\n]+");

    private final TokenSource tokens;
    private final String name;
    private final Map<String, String> extensions;

    OAuthBearerLogin(TokenSource tokens, String name, Map<String, String> extensions) {
        this.tokens = tokens;
        this.name = name;
        this.extensions = extensions;
    }

    /**
     * Reads the login from the settings of listener {@code listenerName}; throws
     * IllegalArgumentException with an operator's message for what cannot work.
     */
    static OAuthBearerLogin of(ListenerSettings listener, String listenerName, Clock clock) {
        String jaas = listener.get(MECHANISM, "sasl.jaas.config");
        boolean hasJaas = jaas != null && !jaas.isBlank();
        String jaasSource = hasJaas ? listener.source(MECHANISM, "sasl.jaas.config")
                : "listener.name." + listenerName.toLowerCase(Locale.ROOT) + ".oauthbearer.sasl.jaas.config (or"
                        + " sasl.jaas.config)";
        Map<String, String> options = Map.of();
        if (hasJaas) {
            try {
                options = JaasConfig.parse(jaas).options();
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("Invalid value for configuration " + jaasSource + ": "
                        + e.getMessage(), e);
            }
        }
        String handler = listener.get(MECHANISM, LOGIN_HANDLER_CONFIG);
        if (handler == null || handler.isBlank()) {
            UnsecuredLoginTokens unsecured = UnsecuredLoginTokens.of(options, jaasSource, clock);
            return new OAuthBearerLogin(unsecured, unsecured.principal(),
                    extensions(options, UnsecuredLoginTokens.EXTENSION, jaasSource));
        }
        String handlerSource = listener.source(MECHANISM, LOGIN_HANDLER_CONFIG);
        if (!LOGIN_HANDLER_CLASSES.contains(handler.trim())) {
            throw new IllegalArgumentException("Invalid value '" + handler + "' for configuration " + handlerSource
                    + ": Brook gets the OAUTHBEARER tokens it logs in to the other nodes with from Kafka's default"
                    + " login callback handler (unsecured tokens, when it is not set) or from a token endpoint, with"
                    + " org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler");
        }
        OAuthTokenEndpoint endpoint = endpoint(listener, listenerName, options, jaasSource, handlerSource, clock);
        return new OAuthBearerLogin(endpoint, endpoint.client(), extensions(options, "extension_", jaasSource));
    }

    private static OAuthTokenEndpoint endpoint(ListenerSettings listener, String listenerName,
            Map<String, String> options, String jaasSource, String handlerSource, Clock clock) {
        String url = listener.get(MECHANISM, TOKEN_ENDPOINT_CONFIG);
        if (url == null || url.isBlank()) {
            throw new IllegalArgumentException(handlerSource + " names Kafka's OAuthBearerLoginCallbackHandler, so "
                    + TOKEN_ENDPOINT_CONFIG + " must be set: the OAuth token endpoint (http:// or https://) or a"
                    + " file: URL of a file holding the token");
        }
        String urlSource = listener.source(MECHANISM, TOKEN_ENDPOINT_CONFIG);
        URI uri;
        try {
            uri = URI.create(url.trim());
        } catch (IllegalArgumentException e) {
            uri = null;
        }
        String scheme = uri == null || uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        boolean web = (scheme.equals("http") || scheme.equals("https")) && uri.getHost() != null;
        if (!web && !scheme.equals("file")) {
            throw new IllegalArgumentException("Invalid value '" + url + "' for configuration " + urlSource
                    + ": must be an http:// or https:// URL of the OAuth token endpoint, or a file: URL");
        }
        if (!web) {
            Path file;
            try {
                file = Path.of(uri);
            } catch (IllegalArgumentException | java.nio.file.FileSystemNotFoundException e) {
                throw new IllegalArgumentException("Invalid value '" + url + "' for configuration " + urlSource
                        + ": not a file URL (" + e.getMessage() + ")", e);
            }
            if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
                throw new IllegalArgumentException("Invalid value '" + url + "' for configuration " + urlSource
                        + ": the file " + file + " cannot be read");
            }
        }
        String clientId = options.get("clientId");
        String clientSecret = options.get("clientSecret");
        if (web && (clientId == null || clientId.isBlank() || clientSecret == null || clientSecret.isBlank())) {
            throw new IllegalArgumentException(urlSource + " is an OAuth token endpoint (" + scheme + "://"
                    + uri.getHost() + uri.getRawPath() + "), so " + jaasSource + " needs the options clientId"
                    + " and clientSecret: the OAuth client this broker gets its tokens as");
        }
        SSLContext tls = scheme.equals("https") ? JwksTokenValidator.tls(options, listenerName, "the token endpoint")
                : null;
        String urlencode = listener.get(MECHANISM, "sasl.oauthbearer.header.urlencode");
        boolean encodeHeader = false;
        if (urlencode != null && !urlencode.isBlank()) {
            if (!urlencode.trim().equalsIgnoreCase("true") && !urlencode.trim().equalsIgnoreCase("false")) {
                throw new IllegalArgumentException("Invalid value '" + urlencode + "' for configuration "
                        + listener.source(MECHANISM, "sasl.oauthbearer.header.urlencode") + ": must be true or false");
            }
            encodeHeader = urlencode.trim().equalsIgnoreCase("true");
        }
        String factor = value(listener, "sasl.login.refresh.window.factor", "0.8");
        double windowFactor;
        try {
            windowFactor = Double.parseDouble(factor);
        } catch (NumberFormatException e) {
            windowFactor = Double.NaN;
        }
        if (!(windowFactor >= 0.5 && windowFactor <= 1.0)) {
            throw new IllegalArgumentException("Invalid value '" + factor + "' for configuration "
                    + listener.source(MECHANISM, "sasl.login.refresh.window.factor") + ": must be between 0.5 and 1.0");
        }
        String scope = options.get("scope");
        return new OAuthTokenEndpoint(uri, clientId, clientSecret, scope == null || scope.isBlank() ? null : scope,
                encodeHeader,
                Duration.ofMillis(millis(listener, "sasl.login.connect.timeout.ms", DEFAULT_CONNECT_TIMEOUT_MS)),
                Duration.ofMillis(millis(listener, "sasl.login.read.timeout.ms", DEFAULT_READ_TIMEOUT_MS)), tls,
                windowFactor, value(listener, "sasl.oauthbearer.sub.claim.name", "sub"), clock);
    }

    /** The mechanism's value of {@code key} on the listener, trimmed, or {@code defaultValue} when unset or blank. */
    private static String value(ListenerSettings listener, String key, String defaultValue) {
        String v = listener.get(MECHANISM, key);
        return v == null || v.isBlank() ? defaultValue : v.trim();
    }

    private static int millis(ListenerSettings listener, String key, int defaultValue) {
        String v = value(listener, key, Integer.toString(defaultValue));
        try {
            int ms = Integer.parseInt(v);
            if (ms > 0) {
                return ms;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new IllegalArgumentException("Invalid value '" + v + "' for configuration "
                + listener.source(MECHANISM, key) + ": must be a number of milliseconds, 1 or more");
    }

    /** The SASL extensions among {@code options}: those named {@code prefix<name>}, checked as Kafka checks them. */
    static Map<String, String> extensions(Map<String, String> options, String prefix, String source) {
        Map<String, String> extensions = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : options.entrySet()) {
            if (!e.getKey().startsWith(prefix)) {
                continue;
            }
            String name = e.getKey().substring(prefix.length());
            if (!EXTENSION_NAME.matcher(name).matches() || name.equals("auth")) {
                throw new IllegalArgumentException("Invalid SASL extension " + e.getKey() + " in " + source
                        + ": its name must be letters only, and not auth");
            }
            if (!EXTENSION_VALUE.matcher(e.getValue()).matches()) {
                throw new IllegalArgumentException("Invalid value for the SASL extension " + e.getKey() + " in "
                        + source + ": printable ASCII, spaces, tabs and line breaks only, and not empty");
            }
            extensions.put(name, e.getValue());
        }
        return Collections.unmodifiableMap(extensions);
    }

    /** Who logs in, for messages: the unsecured tokens' principal, the OAuth client id, or the token file. */
    String name() {
        return name;
    }

    /** The SASL extensions each login sends, in order. */
    Map<String, String> extensions() {
        return extensions;
    }

    TokenSource tokens() {
        return tokens;
    }

    /** A client exchange with a token (a new one, or the one cached while fresh); fails with AuthenticationFailure. */
    CompletableFuture<SaslClientExchange> newExchange() {
        return tokens.token().thenApply(token -> new OAuthBearerClient(token, extensions));
    }

    /** The source and the extensions' names: no secret, no token. */
    @Override
    public String toString() {
        return "OAuthBearerLogin[" + tokens.describe() + (extensions.isEmpty() ? "" : ", extensions="
                + extensions.keySet()) + "]";
    }
}
