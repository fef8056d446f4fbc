package io.brook.server.security;

import io.brook.server.config.Listener;
import io.brook.server.config.SecurityProtocol;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One listener's security: its protocol, its TLS material (SSL and SASL_SSL) and its SASL
 * mechanisms (SASL_PLAINTEXT and SASL_SSL) with what each checks credentials against. Built
 * and checked once at start-up, so a wrong setting stops the broker instead of failing clients;
 * only the TLS key and trust stores change later, by a dynamic update checked before it is taken
 * ({@link #prepareTls}, {@link #useTls}).
 *
 * <p>Mechanisms: {@code sasl.enabled.mechanisms} (Kafka's default is GSSAPI, which Brook does not
 * serve: a SASL listener must name its mechanisms). PLAIN takes its users from the
 * {@code user_<name>="<password>"} options of {@code listener.name.<l>.plain.sasl.jaas.config};
 * SCRAM-SHA-256 and SCRAM-SHA-512 check the broker's {@link ScramCredentials} (managed with
 * AlterUserScramCredentials; their JAAS configuration, which Kafka requires, is not needed);
 * OAUTHBEARER validates unsecured tokens as Kafka's default validator does, with the options of
 * {@code listener.name.<l>.oauthbearer.sasl.jaas.config} when set, or, when
 * {@code listener.name.<l>.oauthbearer.sasl.server.callback.handler.class} names Kafka's
 * OAuthBearerValidatorCallbackHandler, signed tokens against a JWKS ({@link JwksTokenValidator}).
 */
public final class ListenerSecurity {

    private static final Logger LOG = LoggerFactory.getLogger(ListenerSecurity.class);

    static final List<String> SUPPORTED_MECHANISMS = List.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER");

    private final String name;
    private final SecurityProtocol protocol;
    /** The settings as configured (static), which a dynamic update of the TLS stores overlays. */
    private final Map<String, String> configured;
    /** The TLS settings as configured or last changed at run time ({@link #useTls}). */
    private volatile TlsSettings tls;
    private final List<String> mechanisms;
    private final Map<String, String> plainUsers;
    private final ScramCredentials scram;
    private final Map<String, String> oauthOptions;
    /** OAUTHBEARER's JWKS validator, or null: the unsecured one. */
    private final JwksTokenValidator jwks;
    /** {@code connections.max.reauth.ms} of each enabled mechanism (its own setting, else the listener's). */
    private final Map<String, Long> reauthMs;
    private final Clock clock;
    private final SslPrincipalMapper principalMapper;
    private final AuthenticationLimits limits;
    /** Kafka's principal builder, the only value of {@code principal.builder.class} Brook accepts. */
    static final String AUTHENTICATION_TIMEOUT = "brook.sasl.authentication.timeout.ms";
    static final String KAFKA_PRINCIPAL_BUILDER =
            "org.apache.kafka.common.security.authenticator.DefaultKafkaPrincipalBuilder";

    /**
     * What a client that has not authenticated may cost: {@code connection.failed.authentication.delay.ms}
     * (how long a failed authentication waits before its close), {@code sasl.server.max.receive.size}
     * (the largest frame it may send) and {@code brook.sasl.authentication.timeout.ms} (how long
     * it may stay connected without authenticating; 0: as long as it likes).
     */
    private record AuthenticationLimits(long failedDelayMs, int maxReceiveSize, long authenticationTimeoutMs) {
    }

    private ListenerSecurity(String name, SecurityProtocol protocol, Map<String, String> configured, TlsSettings tls,
            List<String> mechanisms,
            Map<String, String> plainUsers, ScramCredentials scram, Map<String, String> oauthOptions,
            JwksTokenValidator jwks, Map<String, Long> reauthMs, Clock clock, SslPrincipalMapper principalMapper,
            AuthenticationLimits limits) {
        this.jwks = jwks;
        this.principalMapper = principalMapper;
        this.limits = limits;
        this.reauthMs = reauthMs;
        this.clock = clock;
        this.scram = scram;
        this.oauthOptions = oauthOptions;
        this.name = name;
        this.protocol = protocol;
        this.configured = configured;
        this.tls = tls;
        this.mechanisms = mechanisms;
        this.plainUsers = plainUsers;
    }

    static ListenerSecurity create(Listener listener, SecurityProtocol protocol, Map<String, String> raw,
            ScramCredentials scram, Clock clock) {
        return create(listener, protocol, raw, Map.of(), scram, clock);
    }

    /** {@code dynamicTls}: this listener's TLS keys changed at run time, over {@code raw}. */
    static ListenerSecurity create(Listener listener, SecurityProtocol protocol, Map<String, String> raw,
            Map<String, String> dynamicTls, ScramCredentials scram, Clock clock) {
        ListenerSettings settings = new ListenerSettings(overlay(raw, dynamicTls), listener.name());
        String builder = settings.get("principal.builder.class");
        if (builder != null && !builder.isBlank() && !builder.trim().equals(KAFKA_PRINCIPAL_BUILDER)) {
            // a custom builder would name principals differently: ACLs and super.users written
            // for its names would silently stop matching
            throw new IllegalArgumentException("Invalid value '" + builder.trim() + "' for configuration "
                    + settings.source("principal.builder.class") + ": Brook builds principals as Kafka's "
                    + KAFKA_PRINCIPAL_BUILDER + " does (User:<SASL name>, or the TLS subject through"
                    + " ssl.principal.mapping.rules) and loads no other class");
        }
        TlsSettings tls = protocol.tls() ? TlsSettings.read(settings, listener.name(), protocol.sasl()) : null;
        List<String> mechanisms = List.of();
        Map<String, Long> reauthMs = new HashMap<>();
        Map<String, String> plainUsers = Map.of();
        Map<String, String> oauthOptions = Map.of();
        JwksTokenValidator jwks = null;
        if (protocol.sasl()) {
            mechanisms = new ArrayList<>();
            for (String m : settings.getOrDefault("sasl.enabled.mechanisms", "GSSAPI").split(",")) {
                if (!m.isBlank()) {
                    mechanisms.add(m.trim().toUpperCase(Locale.ROOT));
                }
            }
            for (String m : mechanisms) {
                if (!SUPPORTED_MECHANISMS.contains(m)) {
                    throw new IllegalArgumentException("Invalid value '" + String.join(",", mechanisms)
                            + "' for configuration " + settings.source("sasl.enabled.mechanisms") + " of listener "
                            + listener.name() + ": Brook supports " + SUPPORTED_MECHANISMS + ", not " + m);
                }
            }
            if (mechanisms.isEmpty()) {
                throw new IllegalArgumentException("Listener " + listener.name() + " uses SASL but"
                        + " sasl.enabled.mechanisms is empty");
            }
            mechanisms = List.copyOf(mechanisms);
            for (String m : mechanisms) {
                // Kafka's listener.name.<l>.<mechanism>.connections.max.reauth.ms, else the listener's
                String v = settings.get(m, "connections.max.reauth.ms");
                reauthMs.put(m, millis(v == null || v.isBlank() ? "0" : v.trim(),
                        settings.source(m, "connections.max.reauth.ms")));
            }
            if (mechanisms.contains("PLAIN")) {
                plainUsers = plainUsers(settings, listener.name());
            }
            if (mechanisms.contains("OAUTHBEARER")) {
                String jaas = settings.get("oauthbearer", "sasl.jaas.config");
                if (jaas != null && !jaas.isBlank()) {
                    try {
                        oauthOptions = JaasConfig.parse(jaas).options();
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException("Invalid value for configuration listener.name."
                                + listener.name().toLowerCase(Locale.ROOT) + ".oauthbearer.sasl.jaas.config: "
                                + e.getMessage(), e);
                    }
                }
                jwks = JwksTokenValidator.fromSettings(settings, listener.name(), clock, oauthOptions);
                if (jwks == null) {
                    LOG.warn("Listener {} takes unsigned OAUTHBEARER tokens (Kafka's unsecured validator): whoever"
                            + " reaches it can log in as any user, super users included. For development only;"
                            + " validate signed tokens against a JWKS in production (docs/security.md)", listener.name());
                }
            }
        }
        return new ListenerSecurity(listener.name(), protocol, raw, tls, mechanisms, plainUsers, scram, oauthOptions, jwks,
                Map.copyOf(reauthMs), clock, SslPrincipalMapper.parse(settings.get("ssl.principal.mapping.rules")),
                new AuthenticationLimits(millis(settings, "connection.failed.authentication.delay.ms", "100"),
                        bytes(settings, "sasl.server.max.receive.size", "524288"),
                        millis(settings, AUTHENTICATION_TIMEOUT, "30000")));
    }

    /** A positive number of bytes (an int), the value of {@code key} or its default. */
    private static int bytes(ListenerSettings settings, String key, String defaultValue) {
        String v = settings.getOrDefault(key, defaultValue).trim();
        int n;
        try {
            n = Integer.parseInt(v);
        } catch (NumberFormatException e) {
            n = 0;
        }
        if (n <= 0) {
            throw new IllegalArgumentException("Invalid value '" + v + "' for configuration " + settings.source(key)
                    + ": must be a number of bytes, 1 to " + Integer.MAX_VALUE);
        }
        return n;
    }

    private static long millis(ListenerSettings settings, String key, String defaultValue) {
        return millis(settings.getOrDefault(key, defaultValue), settings.source(key));
    }

    /** {@code v}, the value of the setting named {@code source}, as milliseconds (0 or more). */
    private static long millis(String v, String source) {
        long ms;
        try {
            ms = Long.parseLong(v);
        } catch (NumberFormatException e) {
            ms = -1;
        }
        if (ms < 0) {
            throw new IllegalArgumentException("Invalid value '" + v + "' for configuration " + source
                    + ": must be a number of milliseconds, 0 or more");
        }
        return ms;
    }

    private static Map<String, String> plainUsers(ListenerSettings settings, String listenerName) {
        String jaas = settings.get("plain", "sasl.jaas.config");
        String key = "listener.name." + listenerName.toLowerCase(Locale.ROOT) + ".plain.sasl.jaas.config";
        if (jaas == null || jaas.isBlank()) {
            throw new IllegalArgumentException("Listener " + listenerName + " enables SASL/PLAIN but " + key
                    + " is not set (PlainLoginModule with user_<name>=\"<password>\" options)");
        }
        JaasConfig config;
        try {
            config = JaasConfig.parse(jaas);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Invalid value for configuration " + key + ": " + e.getMessage(), e);
        }
        Map<String, String> users = new LinkedHashMap<>();
        config.options().forEach((option, value) -> {
            if (option.startsWith("user_") && option.length() > 5) {
                users.put(option.substring(5), value);
            }
        });
        return Collections.unmodifiableMap(users);
    }

    public String name() {
        return name;
    }

    public SecurityProtocol protocol() {
        return protocol;
    }

    /** The TLS settings (as configured, or as last changed at run time), or null on a listener without TLS. */
    public TlsSettings tls() {
        return tls;
    }

    /**
     * The TLS settings this listener would have with {@code dynamicTls} (reconfigurable TLS keys
     * of this listener, {@code listener.name.<l>.ssl.*}) over its configured settings: the stores
     * read and checked against those in use ({@link TlsSettings#incompatibleWith}). Nothing
     * changes until {@link #useTls}. Throws IllegalArgumentException, saying why, when they
     * cannot be used.
     */
    public TlsSettings prepareTls(Map<String, String> dynamicTls) {
        TlsSettings current = tls;
        if (current == null) {
            throw new IllegalArgumentException("Listener " + name + " does not use TLS");
        }
        TlsSettings next = TlsSettings.read(new ListenerSettings(overlay(configured, dynamicTls), name), name,
                protocol.sasl());
        String why = next.incompatibleWith(current);
        if (why != null) {
            throw new IllegalArgumentException("Invalid TLS configuration of listener " + name + ": " + why);
        }
        return next;
    }

    /** From now on new connections of this listener use {@code next} (from {@link #prepareTls}); open ones keep theirs. */
    public void useTls(TlsSettings next) {
        this.tls = next;
    }

    /** {@code base} with the entries of {@code over}, whose keys replace those {@code base} spells in another case. */
    static Map<String, String> overlay(Map<String, String> base, Map<String, String> over) {
        if (over.isEmpty()) {
            return base;
        }
        Map<String, String> out = new LinkedHashMap<>(base);
        for (Map.Entry<String, String> e : over.entrySet()) {
            out.keySet().removeIf(k -> k.equalsIgnoreCase(e.getKey()));
            out.put(e.getKey(), e.getValue());
        }
        return out;
    }

    /**
     * {@code connections.max.reauth.ms} of {@code mechanism} on this SASL listener (KIP-368):
     * {@code listener.name.<l>.<mechanism>.connections.max.reauth.ms}, else the listener's or the
     * broker's setting, as in Kafka; 0 sets no bound (an OAUTHBEARER token's expiry still bounds
     * its session).
     */
    long reauthMs(String mechanism) {
        return reauthMs.getOrDefault(mechanism, 0L);
    }

    Clock clock() {
        return clock;
    }

    long failedAuthenticationDelayMs() {
        return limits.failedDelayMs();
    }

    long authenticationTimeoutMs() {
        return limits.authenticationTimeoutMs();
    }

    /** {@code sasl.server.max.receive.size}: the largest frame before authentication (Kafka's default 512 KiB). */
    int maxReceiveBeforeAuthentication() {
        return limits.maxReceiveSize();
    }

    SslPrincipalMapper principalMapper() {
        return principalMapper;
    }

    List<String> mechanisms() {
        return mechanisms;
    }

    /** A new connection's security state. */
    public Session newSession() {
        return new Session(this);
    }

    /** The server side of {@code mechanism} for one connection, or null when this listener does not enable it. */
    SaslNegotiation newNegotiation(String mechanism) {
        if (!mechanisms.contains(mechanism)) {
            return null;
        }
        return switch (mechanism) {
            case "PLAIN" -> new PlainNegotiation(plainUsers);
            case "SCRAM-SHA-256" -> new ScramNegotiation(ScramMechanism.SCRAM_SHA_256, scram);
            case "SCRAM-SHA-512" -> new ScramNegotiation(ScramMechanism.SCRAM_SHA_512, scram);
            case "OAUTHBEARER" -> new OAuthBearerNegotiation(oauthOptions, clock, jwks);
            default -> null;
        };
    }
}
