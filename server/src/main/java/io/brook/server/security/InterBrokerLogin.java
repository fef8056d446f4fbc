package io.brook.server.security;

import io.brook.server.config.SecurityProtocol;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

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
 *     PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512, which the listener must enable; the user name and
 *     password are the {@code username} and {@code password} options of that mechanism's JAAS
 *     configuration on the listener ({@code listener.name.<l>.<mechanism>.sasl.jaas.config}, then
 *     {@code listener.name.<l>.sasl.jaas.config}, then {@code sasl.jaas.config}).
 * </ul>
 *
 * @param protocol the inter-broker listener's protocol
 * @param tls its TLS settings (null unless SSL or SASL_SSL)
 * @param verifyHostname whether the other node's host name is checked against its certificate
 *     (false without TLS)
 * @param mechanism the SASL mechanism, null unless SASL_PLAINTEXT or SASL_SSL
 * @param username the user this broker logs in as (null without SASL)
 * @param password its password (null without SASL); never shown by {@link #toString}
 */
public record InterBrokerLogin(SecurityProtocol protocol, TlsSettings tls, boolean verifyHostname, String mechanism,
        String username, String password) {

    /** The setting naming the SASL mechanism brokers log in to each other with. */
    static final String MECHANISM_CONFIG = "sasl.mechanism.inter.broker.protocol";
    static final String ENDPOINT_IDENTIFICATION_CONFIG = "ssl.endpoint.identification.algorithm";
    private static final List<String> CLIENT_MECHANISMS = List.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512");

    /** PLAINTEXT: no TLS, no SASL. */
    public static final InterBrokerLogin PLAINTEXT =
            new InterBrokerLogin(SecurityProtocol.PLAINTEXT, null, false, null, null, null);

    public InterBrokerLogin {
        Objects.requireNonNull(protocol, "protocol");
        if (protocol.sasl() && (mechanism == null || username == null || password == null)) {
            throw new IllegalArgumentException("A " + protocol + " login needs a mechanism, a user name and a password");
        }
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
            tls = TlsSettings.read(listener, listenerName);
            verifyHostname = verifyHostname(listener);
        }
        if (!protocol.sasl()) {
            return new InterBrokerLogin(protocol, tls, verifyHostname, null, null, null);
        }
        String mechanism = mechanism(settings, listener, listenerName, protocol);
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
                    + ", which Brook does not support: set it to PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 for " + where);
        }
        if (mechanism.equals("OAUTHBEARER")) {
            throw new IllegalArgumentException(MECHANISM_CONFIG + "=OAUTHBEARER is not supported for inter-broker"
                    + " logins yet: set it to PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 for " + where);
        }
        if (!CLIENT_MECHANISMS.contains(mechanism)) {
            throw new IllegalArgumentException("Invalid value '" + configured + "' for configuration "
                    + MECHANISM_CONFIG + ": Brook supports PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 for " + where);
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

    /** A new client exchange for this login's mechanism (PLAIN or SCRAM-SHA-256/512); only when SASL. */
    public SaslClientExchange newExchange() {
        if (mechanism == null) {
            throw new IllegalStateException(protocol + " does not log in with SASL");
        }
        if (mechanism.equals("PLAIN")) {
            return new PlainClient(username, password);
        }
        ScramMechanism scram = ScramMechanism.ofName(mechanism);
        if (scram == null) {
            throw new IllegalStateException("No inter-broker client for SASL mechanism " + mechanism);
        }
        return new ScramClient(scram, username, password);
    }

    /** The login without its password. */
    @Override
    public String toString() {
        return "InterBrokerLogin[protocol=" + protocol + ", tls=" + tls + ", verifyHostname=" + verifyHostname
                + ", mechanism=" + mechanism + ", username=" + username
                + ", password=" + (password == null ? "null" : "(hidden)") + "]";
    }
}
