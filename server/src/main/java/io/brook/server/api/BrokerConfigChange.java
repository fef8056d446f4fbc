package io.brook.server.api;

import io.brook.server.api.TopicConfigChange.Failure;
import io.brook.server.config.BrokerConfig;
import io.brook.server.config.DynamicBrokerConfig;
import io.brook.server.config.ListenerTlsKeys;
import io.brook.server.network.NetworkServer;
import io.brook.server.node.BrokerContext;
import io.brook.server.security.BrokerSecurity;
import io.brook.server.security.ListenerSecurity;
import io.brook.server.security.TlsSettings;
import io.brook.server.security.quota.ConnectionLimits;
import io.brook.server.topic.TopicConfigResolver;
import io.brook.storage.config.ConfigKey;
import io.brook.wire.message.IncrementalAlterConfigsRequest.AlterConfigsResource;
import io.brook.wire.message.IncrementalAlterConfigsRequest.AlterableConfig;
import io.brook.wire.protocol.Errors;
import java.io.IOException;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * IncrementalAlterConfigs on a BROKER resource ({@code kafka-configs.sh --alter --entity-type
 * brokers}): the resource name is this broker's id (its own settings) or empty (the cluster-wide
 * default). All changes of a resource are checked first (only {@link DynamicBrokerConfig#RECONFIGURABLE}
 * keys, or custom ones Brook does not know, kept without effect as Kafka keeps them; values of
 * the key's type, topic defaults that stay valid, and for a TLS listener's key or
 * trust store ({@code listener.name.<l>.ssl.keystore.location}, ...; this broker's scope only)
 * stores that load, keep the DN and subject alternative names and build a TLS context), then
 * persisted together and applied (to every topic without its own override; to the listener's new
 * connections; connection limits to the connections accepted next), or none is. AlterConfigs,
 * the older API, replaces a scope's settings whole.
 */
final class BrokerConfigChange {

    private static final Logger LOG = LoggerFactory.getLogger(BrokerConfigChange.class);

    private BrokerConfigChange() {
    }

    /** Null when {@code name} names this broker or the cluster default, else why not. */
    static Failure checkBroker(BrokerContext broker, String name) {
        if (!name.isEmpty() && !name.equals(Integer.toString(broker.nodeId()))) {
            return new Failure(Errors.INVALID_REQUEST, "Unexpected broker id, expected " + broker.nodeId()
                    + " or empty string, but received " + name);
        }
        return null;
    }

    static Failure alter(BrokerContext broker, BrokerSecurity security, AlterConfigsResource res,
            boolean validateOnly) {
        Failure f = checkBroker(broker, res.resourceName());
        if (f != null) {
            return f;
        }
        DynamicBrokerConfig dynamic = broker.topics().configs().dynamic();
        boolean defaultScope = res.resourceName().isEmpty();
        synchronized (dynamic) { // one change at a time: each starts from what the last one left
            Map<String, String> next = new LinkedHashMap<>(defaultScope ? dynamic.clusterDefault() : dynamic.broker());
            Set<String> seen = new HashSet<>();
            for (AlterableConfig c : res.configs()) {
                if (!seen.add(c.name())) {
                    return new Failure(Errors.INVALID_REQUEST, "Duplicate config " + c.name() + " in request");
                }
                ConfigKey key = BrokerConfig.KEYS.get(c.name());
                switch (c.configOperation()) {
                    case IncrementalAlterConfigsHandler.OP_SET -> {
                        if (c.value() == null) {
                            return new Failure(Errors.INVALID_REQUEST, "Null value not supported for " + c.name());
                        }
                        next.put(c.name(), c.value());
                    }
                    case IncrementalAlterConfigsHandler.OP_DELETE -> next.remove(c.name());
                    case IncrementalAlterConfigsHandler.OP_APPEND, IncrementalAlterConfigsHandler.OP_SUBTRACT -> {
                        if (key == null || key.type() != ConfigKey.Type.LIST) {
                            return new Failure(Errors.INVALID_CONFIG, "Config " + c.name()
                                    + " is not a list; APPEND and SUBTRACT apply to lists only");
                        }
                        String current = next.containsKey(c.name()) ? next.get(c.name())
                                : String.join(",", broker.config().list(c.name()));
                        next.put(c.name(), IncrementalAlterConfigsHandler.edit(current, c.value(),
                                c.configOperation() == IncrementalAlterConfigsHandler.OP_APPEND));
                    }
                    default -> {
                        return new Failure(Errors.INVALID_REQUEST, "Unknown config operation " + c.configOperation());
                    }
                }
                if (c.configOperation() != IncrementalAlterConfigsHandler.OP_DELETE) {
                    String invalid = DynamicBrokerConfig.invalid(c.name(), next.get(c.name()));
                    if (invalid != null) {
                        return new Failure(Errors.INVALID_CONFIG, invalid);
                    }
                }
            }
            return apply(broker, security, defaultScope, next, seen, validateOnly);
        }
    }

    /**
     * AlterConfigs (the API before KIP-339) on a BROKER resource: {@code values} replace all of
     * the scope's dynamic settings, as in Kafka.
     */
    static Failure replace(BrokerContext broker, BrokerSecurity security, String name, Map<String, String> values,
            boolean validateOnly) {
        Failure f = checkBroker(broker, name);
        if (f != null) {
            return f;
        }
        for (Map.Entry<String, String> e : values.entrySet()) {
            String invalid = DynamicBrokerConfig.invalid(e.getKey(), e.getValue());
            if (invalid != null) {
                return new Failure(Errors.INVALID_CONFIG, invalid);
            }
        }
        DynamicBrokerConfig dynamic = broker.topics().configs().dynamic();
        synchronized (dynamic) {
            // the listeners whose stores were set at run time and no longer are go back to their configured ones
            Set<String> named = new HashSet<>(name.isEmpty() ? dynamic.clusterDefault().keySet() : dynamic.broker().keySet());
            named.addAll(values.keySet());
            return apply(broker, security, name.isEmpty(), values, named, validateOnly);
        }
    }

    /**
     * Checks the scope's next settings as a whole and (unless {@code validateOnly}) persists and
     * applies them: topic defaults that stay valid; for each TLS listener named by a key in
     * {@code named} (changed or not: naming the same key store file again re-reads it, as in
     * Kafka), stores that load, keep the broker's identity and build a TLS context. Either all
     * of it takes effect or none. The caller holds the dynamic config's lock.
     */
    private static Failure apply(BrokerContext broker, BrokerSecurity security, boolean defaultScope,
            Map<String, String> next, Set<String> named, boolean validateOnly) {
        TopicConfigResolver resolver = broker.topics().configs();
        DynamicBrokerConfig dynamic = resolver.dynamic();
        for (String k : named) {
            String invalid = defaultScope ? DynamicBrokerConfig.invalidInDefaultScope(k) : null;
            if (invalid != null) {
                return new Failure(Errors.INVALID_CONFIG, invalid);
            }
        }
        Map<String, String> effective = new LinkedHashMap<>(defaultScope ? next : dynamic.clusterDefault());
        effective.putAll(defaultScope ? dynamic.broker() : next);
        String invalid = resolver.invalidDynamic(effective);
        if (invalid == null) {
            invalid = ConnectionLimits.invalid(broker.config(), effective);
        }
        if (invalid != null) {
            return new Failure(Errors.INVALID_CONFIG, invalid);
        }
        Set<String> listeners = new TreeSet<>();
        for (String k : named) {
            String l = ListenerTlsKeys.listener(k);
            if (l != null) {
                listeners.add(l);
            }
        }
        Map<ListenerSecurity, TlsSettings> tls = new LinkedHashMap<>();
        for (String l : listeners) {
            ListenerSecurity ls = security.listenerOrNull(l);
            if (ls == null) {
                return new Failure(Errors.INVALID_CONFIG, "No listener named " + l + " on this broker");
            }
            try {
                TlsSettings prepared = ls.prepareTls(ListenerTlsKeys.of(next, l));
                NetworkServer.checkTls(prepared);
                tls.put(ls, prepared);
            } catch (IllegalArgumentException | SSLException e) {
                return new Failure(Errors.INVALID_CONFIG, String.valueOf(e.getMessage()));
            }
        }
        if (validateOnly) {
            return null;
        }
        try {
            dynamic.replace(defaultScope, next, inForce -> {
                resolver.reconfigure(inForce);
                broker.topics().reconfigureAll();
                security.connectionLimits().reconfigure(inForce);
                tls.forEach(ListenerSecurity::useTls);
            });
        } catch (IOException e) {
            LOG.error("Could not persist the broker's dynamic settings", e);
            return new Failure(Errors.KAFKA_STORAGE_ERROR, "Could not persist the change: " + e.getMessage());
        }
        LOG.info("Broker settings changed at run time ({}): {}", defaultScope ? "cluster default" : "this broker",
                redacted(next));
        for (String k : named) {
            if (next.containsKey(k) && DynamicBrokerConfig.isCustom(k)) {
                LOG.warn("Broker config {} is not one Brook knows: kept as a custom setting (as Kafka keeps them"
                        + " for its plug-ins), without effect", k);
            }
        }
        return null;
    }

    /** {@code settings} for the log: secrets replaced by {@code [hidden]}. */
    static Map<String, String> redacted(Map<String, String> settings) {
        Map<String, String> out = new LinkedHashMap<>();
        settings.forEach((k, v) -> out.put(k, ListenerTlsKeys.sensitive(k) ? "[hidden]" : v));
        return out;
    }
}
