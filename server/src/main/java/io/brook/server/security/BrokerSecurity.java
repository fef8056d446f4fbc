package io.brook.server.security;

import io.brook.server.config.BrokerConfig;
import io.brook.server.config.DynamicBrokerConfig;
import io.brook.server.config.ListenerTlsKeys;
import io.brook.server.config.Listener;
import io.brook.server.config.SecurityProtocol;
import io.brook.server.security.quota.ClientQuotaStore;
import io.brook.server.security.quota.ClientQuotas;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's security as configured: each listener's {@link ListenerSecurity}, built and
 * checked at start-up, and the SCRAM credentials they share. Thread-safe.
 */
public final class BrokerSecurity {

    private static final Logger LOG = LoggerFactory.getLogger(BrokerSecurity.class);

    /** Brook's setting for the SCRAM users made at start-up (Kafka: {@code kafka-storage format --add-scram}). */
    public static final String SCRAM_BOOTSTRAP = "brook.sasl.scram.bootstrap.credentials";

    private final Map<String, ListenerSecurity> listeners;
    private final ScramCredentials scram;
    private final Authorizer authorizer;
    private final ClientQuotaStore quotaStore;
    private final ClientQuotas quotas;

    private BrokerSecurity(Map<String, ListenerSecurity> listeners, ScramCredentials scram, Authorizer authorizer,
            ClientQuotaStore quotaStore, ClientQuotas quotas) {
        this.listeners = listeners;
        this.scram = scram;
        this.authorizer = authorizer;
        this.quotaStore = quotaStore;
        this.quotas = quotas;
    }

    /** Reads and checks the security settings of every listener of {@code config}; SCRAM users and ACLs in memory only. */
    public static BrokerSecurity create(BrokerConfig config) {
        try {
            return create(config, ScramCredentials.inMemory(), null, Clock.systemUTC());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e); // (nothing is read without a directory)
        }
    }

    /**
     * Reads and checks the security settings of every listener of {@code config}, with the SCRAM
     * credentials {@code scram}, to which the users of {@value #SCRAM_BOOTSTRAP} are added
     * (durably) unless they have a credential for that mechanism already, and the ACLs kept in
     * {@code metaDir} (null: in memory only), as are the client quotas, and over each TLS
     * listener's configured stores those changed at run time (kept in {@code metaDir}'s
     * {@link DynamicBrokerConfig}, read here once); authentications expire,
     * and quota rates are measured, on {@code clock}'s time.
     */
    public static BrokerSecurity create(BrokerConfig config, ScramCredentials scram, Path metaDir, Clock clock)
            throws IOException {
        String bootstrap = config.securitySettings().get(SCRAM_BOOTSTRAP);
        if (bootstrap != null && !bootstrap.isBlank()) {
            ScramBootstrap.apply(bootstrap, scram);
        }
        // the key and trust stores last set at run time (kafka-configs.sh --entity-type brokers) win
        Map<String, String> dynamic = metaDir == null ? Map.of() : DynamicBrokerConfig.open(metaDir).broker();
        Map<String, ListenerSecurity> out = new LinkedHashMap<>();
        for (Listener l : config.listeners().bound()) {
            out.put(l.name(), listenerSecurity(l, config, ListenerTlsKeys.of(dynamic, l.name()), scram, clock));
        }
        ClientQuotaStore quotaStore = metaDir == null ? ClientQuotaStore.inMemory() : ClientQuotaStore.open(metaDir);
        ClientQuotas quotas = new ClientQuotas(quotaStore, config.intValue(BrokerConfig.QUOTA_WINDOW_NUM),
                config.intValue(BrokerConfig.QUOTA_WINDOW_SIZE_SECONDS) * 1000L, clock::millis);
        Authorizer authorizer = Authorizer.create(config.securitySettings(), metaDir);
        if (config.clustered() && (authorizer.enabled() || out.values().stream().anyMatch(l -> l.protocol().sasl()))) {
            LOG.warn("Cluster mode: ACLs, SCRAM credentials and client quotas are kept by each node on its own"
                    + " (they are not in the replicated metadata yet): a change applies only on the node that"
                    + " received it. Give every node its users with brook.sasl.scram.bootstrap.credentials and"
                    + " its administrators with super.users (see docs/cluster.md)");
        }
        return new BrokerSecurity(Collections.unmodifiableMap(out), scram, authorizer, quotaStore, quotas);
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
