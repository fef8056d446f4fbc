package io.brook.server.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The security settings a broker's DescribeConfigs lists, the way Kafka lists its own: each with
 * Kafka's type and default, and the value the configuration file gives it. Secrets (Kafka's
 * PASSWORD type: store passwords, PEM keys, JAAS configurations) are listed without a value and
 * flagged sensitive, as is any setting Kafka does not define ({@code super.users},
 * {@code allow.everyone.if.no.acl.found}: Kafka cannot tell what they hold). Listed are the
 * settings Brook reads (an unread one such as {@code ssl.provider} would claim an effect it does
 * not have) and whatever else the file sets under {@code listener.name.<l>.}, typed as the key it
 * overrides. They are all read at start-up; the TLS stores change at run time only per listener
 * ({@link ListenerTlsKeys}). The exception are Kafka's Kerberos settings ({@link #KERBEROS}):
 * Brook has no GSSAPI, yet they are known, listed and may change at run time per broker as in
 * Kafka, so that a Kafka configuration or a tool that sets them is accepted; they have no effect.
 */
public final class SecurityConfigKeys {

    /** DescribeConfigs' type ids (v3+) of the types security settings have. */
    public enum Type {
        BOOLEAN(1), STRING(2), INT(3), LONG(5), DOUBLE(6), LIST(7), CLASS(8), PASSWORD(9);

        public final byte id;

        Type(int id) {
            this.id = (byte) id;
        }
    }

    /**
     * One setting: its name, Kafka's type and default (null: none), a line of documentation, and
     * whether it is listed when not set (not those Kafka does not define).
     */
    record Key(String name, Type type, String defaultValue, String doc, boolean listedUnset) {
    }

    /** A listed setting: the value in force (null when it is a secret or has none), whether set in the file. */
    public record Entry(String name, String value, Type type, boolean sensitive, boolean explicit,
            String defaultValue, String doc) {
    }

    private static final String LISTENER_PREFIX = "listener.name.";

    private static final String NO_GSSAPI = " Kafka's Kerberos setting: kept, without effect (Brook has no GSSAPI).";

    /** The settings Brook reads, in the order they are listed (Kafka's: by name). */
    static final Map<String, Key> KEYS = keys(
            whenSet("allow.everyone.if.no.acl.found",
                    "With an authorizer: whether a resource without ACLs is open to everyone."),
            key("authorizer.class.name", Type.STRING, "",
                    "Enables ACLs (Kafka's StandardAuthorizer semantics); empty: every request is allowed."),
            key("brook.sasl.authentication.timeout.ms", Type.LONG, "30000",
                    "A SASL client that has not authenticated within this long is disconnected."),
            key("brook.sasl.scram.bootstrap.credentials", Type.PASSWORD, null,
                    "SCRAM users created at start-up when absent, as kafka-storage format --add-scram."),
            key("brook.ssl.engine", Type.STRING, "openssl", "The TLS engine: openssl (BoringSSL) or jdk."),
            key("connection.failed.authentication.delay.ms", Type.INT, "100",
                    "How long the answer to a failed authentication is held before the connection closes."),
            key("connections.max.reauth.ms", Type.LONG, "0",
                    "Longest a SASL session lasts before the client must re-authenticate (KIP-368); 0: forever."),
            key("delegation.token.expiry.check.interval.ms", Type.LONG, "3600000",
                    "How often delegation tokens past their expiry are dropped."),
            key("delegation.token.expiry.time.ms", Type.LONG, "86400000",
                    "How long a new or renewed delegation token lasts before it must be renewed."),
            key("delegation.token.max.lifetime.ms", Type.LONG, "604800000",
                    "The longest a delegation token lives, renewed or not."),
            key("delegation.token.secret.key", Type.PASSWORD, null,
                    "The key delegation tokens' HMACs are computed with; unset: tokens disabled."),
            key("principal.builder.class", Type.CLASS,
                    "org.apache.kafka.common.security.authenticator.DefaultKafkaPrincipalBuilder",
                    "How principals are named; only Kafka's default is accepted."),
            key("sasl.enabled.mechanisms", Type.LIST, "GSSAPI", "The SASL mechanisms a listener offers."),
            key("sasl.jaas.config", Type.PASSWORD, null, "JAAS login configuration (users of PLAIN, login modules)."),
            key("sasl.kerberos.kinit.cmd", Type.STRING, "/usr/bin/kinit", "Kerberos kinit command path." + NO_GSSAPI),
            key("sasl.kerberos.min.time.before.relogin", Type.LONG, "60000",
                    "Login thread sleep time between refresh attempts." + NO_GSSAPI),
            key("sasl.kerberos.principal.to.local.rules", Type.LIST, "DEFAULT",
                    "Rules mapping Kerberos principals to short names." + NO_GSSAPI),
            key("sasl.kerberos.service.name", Type.STRING, null, "The Kerberos principal name Kafka runs as." + NO_GSSAPI),
            key("sasl.kerberos.ticket.renew.jitter", Type.DOUBLE, "0.05",
                    "Random jitter added to the renewal time." + NO_GSSAPI),
            key("sasl.kerberos.ticket.renew.window.factor", Type.DOUBLE, "0.8",
                    "Share of a ticket's lifetime after which it is renewed." + NO_GSSAPI),
            key("sasl.login.callback.handler.class", Type.CLASS, null,
                    "Inter-broker OAUTHBEARER: Kafka's client-credentials login handler."),
            key("sasl.login.connect.timeout.ms", Type.INT, null,
                    "Inter-broker OAUTHBEARER: connect timeout to the token endpoint."),
            key("sasl.login.read.timeout.ms", Type.INT, null,
                    "Inter-broker OAUTHBEARER: read timeout from the token endpoint."),
            key("sasl.login.refresh.window.factor", Type.DOUBLE, "0.8",
                    "Inter-broker OAUTHBEARER: share of a token's lifetime after which it is renewed."),
            key("sasl.mechanism.inter.broker.protocol", Type.STRING, "GSSAPI",
                    "The SASL mechanism brokers of a cluster log in to each other with."),
            key("sasl.oauthbearer.allow.unverified.audience", Type.BOOLEAN, "false",
                    "Accept JWKS-signed tokens without checking their audience."),
            key("sasl.oauthbearer.allow.unverified.issuer", Type.BOOLEAN, "false",
                    "Accept JWKS-signed tokens without checking their issuer."),
            key("sasl.oauthbearer.clock.skew.seconds", Type.INT, "30",
                    "Clock difference tolerated on a token's times."),
            key("sasl.oauthbearer.expected.audience", Type.LIST, "", "Audiences a signed token must name one of."),
            key("sasl.oauthbearer.expected.issuer", Type.STRING, null, "The issuer a signed token must name."),
            key("sasl.oauthbearer.header.urlencode", Type.BOOLEAN, "false",
                    "Inter-broker OAUTHBEARER: URL-encode the client id and secret sent to the token endpoint."),
            key("sasl.oauthbearer.jwks.endpoint.refresh.ms", Type.LONG, "3600000",
                    "How often the JWKS is fetched again."),
            key("sasl.oauthbearer.jwks.endpoint.retry.backoff.max.ms", Type.LONG, "10000",
                    "Longest wait between attempts to fetch the JWKS."),
            key("sasl.oauthbearer.jwks.endpoint.retry.backoff.ms", Type.LONG, "100",
                    "First wait between attempts to fetch the JWKS."),
            key("sasl.oauthbearer.jwks.endpoint.url", Type.STRING, null,
                    "The JWKS signed tokens are checked against (https:// or file:); unset: unsecured tokens."),
            key("sasl.oauthbearer.scope.claim.name", Type.STRING, "scope", "The claim holding a token's scope."),
            key("sasl.oauthbearer.sub.claim.name", Type.STRING, "sub", "The claim naming a token's principal."),
            key("sasl.oauthbearer.token.endpoint.url", Type.STRING, null,
                    "Inter-broker OAUTHBEARER: where brokers fetch their own tokens."),
            key("sasl.server.callback.handler.class", Type.CLASS, null,
                    "Kafka's JWKS validator callback handler class (accepted, not loaded)."),
            key("sasl.server.max.receive.size", Type.INT, "524288",
                    "Largest SASL message accepted before authentication."),
            key("ssl.allow.dn.changes", Type.BOOLEAN, "false",
                    "Whether a key store updated at run time may change the certificate's subject."),
            key("ssl.allow.san.changes", Type.BOOLEAN, "false",
                    "Whether a key store updated at run time may change the certificate's alternative names."),
            key("ssl.cipher.suites", Type.LIST, "", "The cipher suites offered; empty: the engine's defaults."),
            key("ssl.client.auth", Type.STRING, "none", "Client certificates: required, requested or none."),
            key("ssl.enabled.protocols", Type.LIST, "TLSv1.2,TLSv1.3", "The TLS versions accepted."),
            key("ssl.endpoint.identification.algorithm", Type.STRING, "https",
                    "Inter-broker TLS: check the other broker's host name against its certificate (https)."),
            key("ssl.key.password", Type.PASSWORD, null, "Password of the private key in the key store."),
            key("ssl.keymanager.algorithm", Type.STRING, "SunX509", "Key manager algorithm of the key store."),
            key("ssl.keystore.certificate.chain", Type.PASSWORD, null, "The certificate chain as PEM text."),
            key("ssl.keystore.key", Type.PASSWORD, null, "The private key as PEM text."),
            key("ssl.keystore.location", Type.STRING, null, "The key store file."),
            key("ssl.keystore.password", Type.PASSWORD, null, "Password of the key store file."),
            key("ssl.keystore.type", Type.STRING, "JKS", "Key store format: JKS, PKCS12 or PEM."),
            key("ssl.principal.mapping.rules", Type.STRING, "DEFAULT",
                    "Rules mapping a client certificate's subject to a principal name."),
            key("ssl.trustmanager.algorithm", Type.STRING, "PKIX", "Trust manager algorithm of the trust store."),
            key("ssl.truststore.certificates", Type.PASSWORD, null, "Trusted certificates as PEM text."),
            key("ssl.truststore.location", Type.STRING, null, "The trust store file."),
            key("ssl.truststore.password", Type.PASSWORD, null, "Password of the trust store file."),
            key("ssl.truststore.type", Type.STRING, "JKS", "Trust store format: JKS, PKCS12 or PEM."),
            whenSet("super.users", "Principals allowed everything, separated by ';'."));

    /**
     * Kafka's Kerberos (GSSAPI) settings ({@code sasl.kerberos.*} above), which Kafka lets change at
     * run time per broker: known and kept, without effect.
     */
    public static final Set<String> KERBEROS = KEYS.keySet().stream().filter(k -> k.startsWith("sasl.kerberos."))
            .collect(Collectors.toUnmodifiableSet());

    private SecurityConfigKeys() {
    }

    private static Key key(String name, Type type, String defaultValue, String doc) {
        return new Key(name, type, defaultValue, doc, true);
    }

    /** A setting Kafka does not define: listed only when set, and then as a secret, as Kafka lists it. */
    private static Key whenSet(String name, String doc) {
        return new Key(name, Type.PASSWORD, null, doc, false);
    }

    private static Map<String, Key> keys(Key... keys) {
        Map<String, Key> out = new LinkedHashMap<>();
        for (Key k : keys) {
            out.put(k.name(), k);
        }
        return out;
    }

    /**
     * Every listed setting, given the security settings as written ({@link
     * BrokerConfig#securitySettings()}): the known ones set or not, then those set under a
     * listener prefix.
     */
    public static List<Entry> describe(Map<String, String> written) {
        List<Entry> out = new ArrayList<>();
        for (Key k : KEYS.values()) {
            String value = written.get(k.name());
            boolean explicit = value != null;
            if (!explicit && !k.listedUnset()) {
                continue;
            }
            boolean secret = k.type() == Type.PASSWORD;
            out.add(new Entry(k.name(), secret ? null : explicit ? value : k.defaultValue(), k.type(), secret,
                    explicit, secret ? null : k.defaultValue(), k.doc()));
        }
        written.forEach((name, value) -> {
            if (name.regionMatches(true, 0, LISTENER_PREFIX, 0, LISTENER_PREFIX.length())) {
                Key base = overridden(name);
                Type type = base == null ? Type.PASSWORD : base.type();
                boolean secret = type == Type.PASSWORD;
                out.add(new Entry(name, secret ? null : value, type, secret, true, null,
                        base == null ? "" : base.doc()));
            }
        });
        return out;
    }

    /**
     * For a {@link #KERBEROS} setting changed at run time: null when {@code value} is of its type,
     * else why not (Kafka's message).
     */
    public static String invalidKerberosValue(String name, String value) {
        Type type = KEYS.get(name).type();
        try {
            if (type == Type.LONG) {
                Long.parseLong(value.trim());
            } else if (type == Type.DOUBLE) {
                Double.parseDouble(value.trim());
            }
            return null;
        } catch (NumberFormatException e) {
            return "Invalid value " + value + " for configuration " + name + ": Not a number of type " + type;
        }
    }

    /** The documentation of a setting or of the key a listener override stands for ("" when none). */
    public static String doc(String name) {
        Key k = lookup(name);
        return k == null ? "" : k.doc();
    }

    /** The type of a setting or of the key a listener override stands for; PASSWORD (a secret) when none. */
    public static Type type(String name) {
        Key k = lookup(name);
        return k == null ? Type.PASSWORD : k.type();
    }

    /** Whether Brook reads {@code name}, a security setting or a listener override of one. */
    static boolean known(String name) {
        return lookup(name) != null;
    }

    private static Key lookup(String name) {
        Key k = KEYS.get(name);
        return k != null ? k : overridden(name);
    }

    /**
     * The key a listener override stands for: {@code listener.name.<l>.<key>} or, for SASL,
     * {@code listener.name.<l>.<mechanism>.<key>}, or a listener's own connection limit
     * ({@link ListenerLimitKeys}); null when it is none Brook reads.
     */
    static Key overridden(String name) {
        if (ListenerLimitKeys.listener(name) != null) {
            String base = ListenerLimitKeys.base(name);
            return new Key(base, Type.INT, null, BrokerConfig.KEYS.get(base).doc(), false);
        }
        int dot = name.indexOf('.', LISTENER_PREFIX.length());
        if (dot < 0) {
            return null;
        }
        String rest = name.substring(dot + 1).toLowerCase(Locale.ROOT);
        Key k = KEYS.get(rest);
        int next = rest.indexOf('.');
        if (k == null && next > 0) {
            k = KEYS.get(rest.substring(next + 1));
        }
        return k;
    }
}
