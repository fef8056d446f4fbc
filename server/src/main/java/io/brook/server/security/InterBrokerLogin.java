package io.brook.server.security;

import io.brook.server.config.SecurityProtocol;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * How this broker logs in to the other nodes' inter-broker listener, as Kafka's brokers do: with
 * the settings of that listener on this broker (every node of a cluster has the same listeners).
 *
 * <ul>
 * <li>TLS (SSL, SASL_SSL): the listener's trust store verifies the other node's certificate (the
 *     JDK's default CAs without one) and its key store is this node's client certificate, for
 *     listeners with {@code ssl.client.auth=required}; {@code ssl.endpoint.identification.algorithm}
 *     (Kafka's default {@code https}) checks the other node's host name against its certificate,
 *     and an empty value turns that check off.
 * <li>SASL (SASL_PLAINTEXT, SASL_SSL): the mechanism is {@code sasl.mechanism.inter.broker.protocol},
 *     PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER, which the listener must enable. For PLAIN
 *     and SCRAM the user name and password are the {@code username} and {@code password} options of
 *     that mechanism's JAAS configuration on the listener
 *     ({@code listener.name.<l>.<mechanism>.sasl.jaas.config}, then
 *     {@code listener.name.<l>.sasl.jaas.config}, then {@code sasl.jaas.config}). OAUTHBEARER logs in
 *     with a token, unsecured (made from that JAAS configuration's {@code unsecuredLogin*} options,
 *     for development) or from an OAuth token endpoint (Kafka's OAuthBearerLoginCallbackHandler in
 *     {@code sasl.login.callback.handler.class}): see {@link OAuthBearerLogin}. Getting a token may
 *     need an HTTP request, so {@link #newExchange()} is asynchronous.
 * </ul>
 *
 * @param protocol the inter-broker listener's protocol
 * @param tls its TLS settings (null unless SSL or SASL_SSL)
 * @param verifyHostname whether the other node's host name is checked against its certificate
 *     (false without TLS)
 * @param mechanism the SASL mechanism, null unless SASL_PLAINTEXT or SASL_SSL
 * @param username the user this broker logs in as (null without SASL); for OAUTHBEARER, for messages,
 *     the unsecured tokens' principal or the OAuth client id
 * @param password its password (null without SASL, and with OAUTHBEARER); never shown by {@link #toString}
 * @param oauthBearer where the OAUTHBEARER tokens come from (null for the other mechanisms); its
 *     {@code toString} shows neither the client secret nor a token
 */
public record InterBrokerLogin(SecurityProtocol protocol, TlsSettings tls, boolean verifyHostname, String mechanism,
        String username, String password, OAuthBearerLogin oauthBearer) {

    /** The setting naming the SASL mechanism brokers log in to each other with. */
    static final String MECHANISM_CONFIG = "sasl.mechanism.inter.broker.protocol";
    static final String ENDPOINT_IDENTIFICATION_CONFIG = "ssl.endpoint.identification.algorithm";
    private static final List<String> CLIENT_MECHANISMS = List.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512",
            "OAUTHBEARER");

    /** PLAINTEXT: no TLS, no SASL. */
    public static final InterBrokerLogin PLAINTEXT =
            new InterBrokerLogin(SecurityProtocol.PLAINTEXT, null, false, null, null, null);

    public InterBrokerLogin {
        Objects.requireNonNull(protocol, "protocol");
        if (protocol.sasl() && "OAUTHBEARER".equals(mechanism)) {
            if (oauthBearer == null || username == null) {
                throw new IllegalArgumentException("A " + protocol + " login with OAUTHBEARER needs its token source");
            }
        } else if (protocol.sasl() && (mechanism == null || username == null || password == null)) {
            throw new IllegalArgumentException("A " + protocol + " login needs a mechanism, a user name and a password");
        }
    }

    /** A login without OAUTHBEARER. */
    public InterBrokerLogin(SecurityProtocol protocol, TlsSettings tls, boolean verifyHostname, String mechanism,
            String username, String password) {
        this(protocol, tls, verifyHostname, mechanism, username, password, null);
    }

    /**
     * Reads the login from the broker's security settings ({@code BrokerConfig.securitySettings()},
     * the raw map of security keys) for listener {@code listenerName} of protocol {@code protocol}.
     * Throws IllegalArgumentException with an operator's message for what cannot work.
     */
    public static InterBrokerLogin of(Map<String, String> settings, String listenerName, SecurityProtocol protocol) {
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(listenerName, "listenerName");
        Objects.requireNonNull(protocol, "protocol");
        if (protocol == SecurityProtocol.PLAINTEXT) {
            return PLAINTEXT;
        }
        ListenerSettings listener = new ListenerSettings(settings, listenerName);
        TlsSettings tls = null;
        boolean verifyHostname = false;
        if (protocol.tls()) {
            tls = TlsSettings.read(listener, listenerName, protocol.sasl());
            verifyHostname = verifyHostname(listener);
        }
        if (!protocol.sasl()) {
            return new InterBrokerLogin(protocol, tls, verifyHostname, null, null, null);
        }
        String mechanism = mechanism(settings, listener, listenerName, protocol);
        if (mechanism.equals("OAUTHBEARER")) {
            OAuthBearerLogin oauth = OAuthBearerLogin.of(listener, listenerName, Clock.systemUTC());
            return new InterBrokerLogin(protocol, tls, verifyHostname, mechanism, oauth.name(), null, oauth);
        }
        String source = listener.source(mechanism, "sasl.jaas.config");
        String jaas = listener.get(mechanism, "sasl.jaas.config");
        if (jaas == null || jaas.isBlank()) {
            throw new IllegalArgumentException("The inter-broker listener " + listenerName + " logs in with SASL/"
                    + mechanism + ", so listener.name." + listenerName.toLowerCase(Locale.ROOT) + "."
                    + mechanism.toLowerCase(Locale.ROOT) + ".sasl.jaas.config (or sasl.jaas.config) needs username"
                    + " and password options: the credentials this broker logs in to the other nodes with");
        }
        Map<String, String> options;
        try {
            options = JaasConfig.parse(jaas).options();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Invalid value for configuration " + source + ": " + e.getMessage(), e);
        }
        String username = options.get("username");
        String password = options.get("password");
        if (username == null || username.isEmpty() || password == null || password.isEmpty()) {
            throw new IllegalArgumentException("The inter-broker listener " + listenerName + " logs in with SASL/"
                    + mechanism + ", so " + source + " needs username and password options: the credentials this"
                    + " broker logs in to the other nodes with");
        }
        return new InterBrokerLogin(protocol, tls, verifyHostname, mechanism, username, password);
    }

    /** {@code ssl.endpoint.identification.algorithm}: https (Kafka's default) verifies the host name, empty does not. */
    private static boolean verifyHostname(ListenerSettings listener) {
        String v = listener.get(ENDPOINT_IDENTIFICATION_CONFIG);
        if (v == null) {
            return true;
        }
        if (v.isBlank()) {
            return false;
        }
        if (v.trim().equalsIgnoreCase("https")) {
            return true;
        }
        throw new IllegalArgumentException("Invalid value '" + v + "' for configuration "
                + listener.source(ENDPOINT_IDENTIFICATION_CONFIG) + ": Brook supports https (check the other node's"
                + " host name against its certificate) or an empty value (do not check it)");
    }

    private static String mechanism(Map<String, String> settings, ListenerSettings listener, String listenerName,
            SecurityProtocol protocol) {
        String configured = settings.get(MECHANISM_CONFIG);
        String mechanism = configured == null || configured.isBlank() ? "GSSAPI"
                : configured.trim().toUpperCase(Locale.ROOT);
        String where = "the inter-broker listener " + listenerName + " (" + protocol + ")";
        if (mechanism.equals("GSSAPI")) {
            throw new IllegalArgumentException(MECHANISM_CONFIG + " is GSSAPI"
                    + (configured == null || configured.isBlank() ? " (Kafka's default, as it is not set)" : "")
                    + ", which Brook does not support: set it to PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER"
                    + " for " + where);
        }
        if (!CLIENT_MECHANISMS.contains(mechanism)) {
            throw new IllegalArgumentException("Invalid value '" + configured + "' for configuration "
                    + MECHANISM_CONFIG + ": Brook supports PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 and OAUTHBEARER for "
                    + where);
        }
        List<String> enabled = new ArrayList<>();
        for (String m : listener.getOrDefault("sasl.enabled.mechanisms", "GSSAPI").split(",")) {
            if (!m.isBlank()) {
                enabled.add(m.trim().toUpperCase(Locale.ROOT));
            }
        }
        if (!enabled.contains(mechanism)) {
            throw new IllegalArgumentException(MECHANISM_CONFIG + "=" + mechanism + " is not among the mechanisms "
                    + where + " enables (" + listener.source("sasl.enabled.mechanisms") + "="
                    + String.join(",", enabled) + "): add it there");
        }
        return mechanism;
    }

    /**
     * A new client exchange for this login's mechanism; only when SASL. Completed at once for
     * PLAIN, SCRAM and unsecured OAUTHBEARER tokens; with a token endpoint, once the token is
     * there (on the HTTP client's thread when it was fetched), or failed with an
     * {@link AuthenticationFailure} whose message tells why and holds no secret.
     */
    public CompletableFuture<SaslClientExchange> newExchange() {
        if (mechanism == null) {
            throw new IllegalStateException(protocol + " does not log in with SASL");
        }
        if (oauthBearer != null) {
            return oauthBearer.newExchange();
        }
        if (mechanism.equals("PLAIN")) {
            return CompletableFuture.completedFuture(new PlainClient(username, password));
        }
        ScramMechanism scram = ScramMechanism.ofName(mechanism);
        if (scram == null) {
            throw new IllegalStateException("No inter-broker client for SASL mechanism " + mechanism);
        }
        return CompletableFuture.completedFuture(new ScramClient(scram, username, password));
    }

    /** The login without its password, client secret or token. */
    @Override
    public String toString() {
        return "InterBrokerLogin[protocol=" + protocol + ", tls=" + tls + ", verifyHostname=" + verifyHostname
                + ", mechanism=" + mechanism + ", username=" + username
                + ", password=" + (password == null ? "null" : "(hidden)")
                + (oauthBearer == null ? "" : ", oauthBearer=" + oauthBearer) + "]";
    }
}
