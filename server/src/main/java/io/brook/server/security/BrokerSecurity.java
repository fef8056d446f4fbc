package io.brook.server.security;

import io.brook.server.config.BrokerConfig;
import io.brook.server.config.DynamicBrokerConfig;
import io.brook.server.config.ListenerTlsKeys;
import io.brook.server.config.Listener;
import io.brook.server.config.SecurityProtocol;
import io.brook.server.security.quota.ClientQuotaStore;
import io.brook.server.security.quota.ClientQuotas;
import io.brook.server.security.quota.ConnectionLimits;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's security as configured: each listener's {@link ListenerSecurity}, built and
 * checked at start-up, and the SCRAM credentials and delegation tokens they share. Thread-safe.
 */
public final class BrokerSecurity {

    private static final Logger LOG = LoggerFactory.getLogger(BrokerSecurity.class);

    /** Brook's setting for the SCRAM users made at start-up (Kafka: {@code kafka-storage format --add-scram}). */
    public static final String SCRAM_BOOTSTRAP = "brook.sasl.scram.bootstrap.credentials";

    private final Map<String, ListenerSecurity> listeners;
    private final ScramCredentials scram;
    private final DelegationTokens tokens;
    private final Authorizer authorizer;
    private final ClientQuotaStore quotaStore;
    private final ClientQuotas quotas;
    private final ConnectionLimits connectionLimits;
    private final List<ScramCredentials.Stored> bootstrapUsers;
    /** Cluster mode: the metadata log that keeps the security settings, once the node joined the cluster. */
    private final CompletableFuture<SecurityMetadataLog> clusterLog = new CompletableFuture<>();

    private BrokerSecurity(Map<String, ListenerSecurity> listeners, ScramCredentials scram, DelegationTokens tokens,
            Authorizer authorizer, ClientQuotaStore quotaStore, ClientQuotas quotas, ConnectionLimits connectionLimits,
            List<ScramCredentials.Stored> bootstrapUsers) {
        this.listeners = listeners;
        this.connectionLimits = connectionLimits;
        this.scram = scram;
        this.tokens = tokens;
        this.authorizer = authorizer;
        this.quotaStore = quotaStore;
        this.quotas = quotas;
        this.bootstrapUsers = List.copyOf(bootstrapUsers);
    }

    /** Reads and checks the security settings of every listener of {@code config}; SCRAM users and ACLs in memory only. */
    public static BrokerSecurity create(BrokerConfig config) {
        try {
            return create(config, null, Clock.systemUTC());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e); // (nothing is read without a directory)
        }
    }

    /**
     * Reads and checks the security settings of every listener of {@code config}. On a single
     * node the SCRAM credentials, ACLs and client quotas are kept in {@code metaDir} (null: in
     * memory only); in cluster mode they are kept by the cluster's metadata log, given with
     * {@link #keptIn} once the node joined it. The users of {@value #SCRAM_BOOTSTRAP} are added
     * unless they have a credential for that mechanism already. Over each TLS listener's
     * configured stores, and over the configured connection limits, those changed at run time
     * (kept in {@code metaDir}'s {@link DynamicBrokerConfig}, read here once) win. Authentications expire, and quota rates
     * are measured, on {@code clock}'s time.
     */
    public static BrokerSecurity create(BrokerConfig config, Path metaDir, Clock clock) throws IOException {
        Path own = config.clustered() ? null : metaDir;
        ScramCredentials scram = own == null ? ScramCredentials.inMemory() : ScramCredentials.open(own);
        DelegationTokens tokens = DelegationTokens.open(own, DelegationTokens.Settings.of(config.securitySettings()),
                clock::millis);
        scram.acceptTokensOf(tokens);
        String bootstrap = config.securitySettings().get(SCRAM_BOOTSTRAP);
        if (bootstrap != null && !bootstrap.isBlank()) {
            ScramBootstrap.apply(bootstrap, scram);
        }
        // the key and trust stores last set at run time (kafka-configs.sh --entity-type brokers) win
        DynamicBrokerConfig changed = metaDir == null ? DynamicBrokerConfig.none() : DynamicBrokerConfig.open(metaDir);
        Map<String, String> dynamic = changed.broker();
        Map<String, ListenerSecurity> out = new LinkedHashMap<>();
        for (Listener l : config.listeners().bound()) {
            out.put(l.name(), listenerSecurity(l, config, ListenerTlsKeys.of(dynamic, l.name()), scram, clock));
        }
        ClientQuotaStore quotaStore = own == null ? ClientQuotaStore.inMemory() : ClientQuotaStore.open(own);
        ClientQuotas quotas = new ClientQuotas(quotaStore, config.intValue(BrokerConfig.QUOTA_WINDOW_NUM),
                config.intValue(BrokerConfig.QUOTA_WINDOW_SIZE_SECONDS) * 1000L, clock::millis);
        Authorizer authorizer = Authorizer.create(config.securitySettings(), own);
        BrokerSecurity security = new BrokerSecurity(Collections.unmodifiableMap(out), scram, tokens, authorizer,
                quotaStore, quotas, ConnectionLimits.of(config, changed.effective()), config.clustered() ? scram.stored() : List.of());
        if (config.clustered()) {
            // changes made before the node joined the cluster wait for it
            authorizer.keptIn(security.clusterLog);
            scram.keptIn(security.clusterLog);
            tokens.keptIn(security.clusterLog);
            quotaStore.keptIn(security.clusterLog);
        }
        return security;
    }

    /** Cluster mode: from now on {@code log} keeps the ACLs, SCRAM credentials, delegation tokens and client quotas. */
    public void keptIn(SecurityMetadataLog log) {
        clusterLog.complete(log);
    }

    /**
     * The users of {@value #SCRAM_BOOTSTRAP} as this node made them at start-up (cluster mode
     * writes those the cluster lacks to its metadata log).
     */
    public List<ScramCredentials.Stored> bootstrapUsers() {
        return bootstrapUsers;
    }

    /** The ACL authorizer (disabled unless authorizer.class.name is set). */
    public Authorizer authorizer() {
        return authorizer;
    }

    /** The client quota settings (AlterClientQuotas, DescribeClientQuotas). */
    public ClientQuotaStore quotaStore() {
        return quotaStore;
    }

    /** The produce and fetch byte-rate quotas, enforced. */
    public ClientQuotas quotas() {
        return quotas;
    }

    /** The connection limits in force (max.connections and the like, changeable at run time). */
    public ConnectionLimits connectionLimits() {
        return connectionLimits;
    }

    /** The delegation tokens (CreateDelegationToken and the APIs beside it; logins with a token). */
    public DelegationTokens tokens() {
        return tokens;
    }

    /** The SCRAM credentials (AlterUserScramCredentials, DescribeUserScramCredentials). */
    public ScramCredentials scram() {
        return scram;
    }

    /** The state of a connection on a PLAINTEXT listener named PLAINTEXT (immutable: it may be shared). */
    public static Session plaintext() {
        return ListenerSecurity.create(new Listener("PLAINTEXT", "", 0), SecurityProtocol.PLAINTEXT, Map.of(),
                ScramCredentials.inMemory(), Clock.systemUTC()).newSession();
    }

    /**
     * A listener's security with the TLS stores set at run time over its configured ones. When
     * those no longer load (a store file deleted or replaced by one that doesn't open since it was
     * set), the listener starts with its configured stores and the error is logged, as Kafka does
     * with dynamic configs that fail at start-up: a setting made at run time never keeps the broker
     * from starting.
     */
    private static ListenerSecurity listenerSecurity(Listener l, BrokerConfig config, Map<String, String> dynamicTls,
            ScramCredentials scram, Clock clock) {
        SecurityProtocol protocol = config.listeners().protocol(l.name());
        if (dynamicTls.isEmpty()) {
            return ListenerSecurity.create(l, protocol, config.securitySettings(), scram, clock);
        }
        try {
            return ListenerSecurity.create(l, protocol, config.securitySettings(), dynamicTls, scram, clock);
        } catch (RuntimeException e) {
            LOG.error("The TLS stores set at run time for listener {} do not load ({}); it starts with its configured"
                    + " stores instead. Set them again with kafka-configs.sh --entity-type brokers.", l.name(),
                    e.getMessage());
            return ListenerSecurity.create(l, protocol, config.securitySettings(), scram, clock);
        }
    }

    /** The security of the listener named {@code name} (upper case), or null when there is none. */
    public ListenerSecurity listenerOrNull(String name) {
        return listeners.get(name);
    }

    /** The security of the listener named {@code name}. */
    public ListenerSecurity listener(String name) {
        ListenerSecurity l = listeners.get(name);
        if (l == null) {
            throw new IllegalArgumentException("no listener " + name);
        }
        return l;
    }
}
