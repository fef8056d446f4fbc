package io.brook.server.api;

import io.brook.server.config.GroupConfigStore;
import io.brook.server.config.BrokerConfig;
import io.brook.server.config.DynamicBrokerConfig;
import io.brook.server.config.ListenerLimitKeys;
import io.brook.server.config.ListenerTlsKeys;
import io.brook.server.config.SecurityConfigKeys;
import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.telemetry.ClientTelemetry;
import io.brook.server.topic.ConfigSynonyms;
import io.brook.server.topic.Topic;
import io.brook.server.topic.TopicConfigResolver;
import io.brook.server.topic.TopicNames;
import io.brook.storage.LogConfig;
import io.brook.storage.config.ConfigKey;
import io.brook.wire.message.DescribeConfigsRequest;
import io.brook.wire.message.DescribeConfigsRequest.DescribeConfigsResource;
import io.brook.wire.message.DescribeConfigsResponse;
import io.brook.wire.message.DescribeConfigsResponse.DescribeConfigsResourceResult;
import io.brook.wire.message.DescribeConfigsResponse.DescribeConfigsResult;
import io.brook.wire.message.DescribeConfigsResponse.DescribeConfigsSynonym;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * DescribeConfigs (key 32) for topics (every topic config with its effective value and source:
 * topic override, dynamic or static broker setting, or default) and for brokers: this broker's id
 * gives every key Brook knows with the value in force (writable: the {@link DynamicBrokerConfig}
 * keys), the security settings ({@link SecurityConfigKeys}) and the TLS listeners' stores set at
 * run time (secrets as Kafka shows them: no value, flagged sensitive), the empty name the
 * cluster-wide default scope (only what was set in it), as Kafka does; each with its
 * documentation when the request asks for it (v3+);
 * for client metrics subscriptions ({@link ClientMetricsResources}); for groups' own settings
 * ({@link GroupConfigResources}).
 */
final class DescribeConfigsHandler implements ApiHandler<DescribeConfigsRequest> {

    /** Kafka's config type id for a key it does not define. */
    private static final byte TYPE_UNKNOWN = 0;

    static final byte RESOURCE_TOPIC = 2;
    static final byte RESOURCE_BROKER = 4;

    private final BrokerContext broker;
    private final ClientTelemetry telemetry;
    private final GroupConfigStore groupConfigs;

    DescribeConfigsHandler(BrokerContext broker, ClientTelemetry telemetry, GroupConfigStore groupConfigs) {
        this.broker = broker;
        this.telemetry = telemetry;
        this.groupConfigs = groupConfigs;
    }

    @Override
    public void handle(RequestContext ctx, DescribeConfigsRequest request) {
        short version = ctx.apiVersion();
        // configType and documentation are v3+ fields; documentation only when asked, null otherwise, as Kafka
        Detail detail = new Detail(version >= 3, version >= 3 && request.includeDocumentation());
        List<DescribeConfigsResult> results = new ArrayList<>();
        for (DescribeConfigsResource res : request.resources()) {
            DescribeConfigsResult r = new DescribeConfigsResult().resourceType(res.resourceType())
                    .resourceName(res.resourceName()).errorCode(Errors.NONE.code()).errorMessage(null);
            switch (res.resourceType()) {
                case RESOURCE_TOPIC -> topic(broker, res, r, request.includeSynonyms() && version >= 1, detail);
                case RESOURCE_BROKER -> broker(broker, res, r, request.includeSynonyms() && version >= 1, detail);
                case BrokerLoggers.RESOURCE_BROKER_LOGGER -> BrokerLoggers.describe(broker, res, r);
                case ClientMetricsResources.RESOURCE_CLIENT_METRICS -> ClientMetricsResources.describe(telemetry, res, r);
                case GroupConfigResources.RESOURCE_GROUP -> group(res, r, detail);
                default -> r.errorCode(Errors.INVALID_REQUEST.code())
                        .errorMessage("Unsupported resource type " + res.resourceType());
            }
            results.add(r);
        }
        ctx.respond(new DescribeConfigsResponse().results(results));
    }

    /** What the answer's version carries: each config's type, and its documentation when asked for. */
    private record Detail(boolean types, boolean documentation) {

        DescribeConfigsResourceResult apply(DescribeConfigsResourceResult c, byte type, String doc) {
            if (types) {
                c.configType(type);
            }
            return c.documentation(documentation ? doc : null);
        }
    }

    private void group(DescribeConfigsResource res, DescribeConfigsResult r, Detail detail) {
        TopicConfigChange.Failure bad = GroupConfigResources.checkName(res.resourceName());
        if (bad != null) {
            r.errorCode(bad.error().code()).errorMessage(bad.message());
            return;
        }
        List<DescribeConfigsResourceResult> out = new ArrayList<>();
        for (DescribeConfigsResourceResult c : GroupConfigResources.describe(groupConfigs, broker.config(),
                res.resourceName(), res.configurationKeys())) {
            out.add(detail.apply(c, GroupConfigResources.TYPE_INT, c.name().endsWith("session.timeout.ms")
                    ? "A member of this consumer group that sends no heartbeat for this long is removed."
                    : "How often members of this consumer group are told to send a heartbeat."));
        }
        r.configs(out);
    }

    private static void topic(BrokerContext broker, DescribeConfigsResource res, DescribeConfigsResult r,
            boolean synonyms, Detail detail) {
        String bad = TopicNames.invalidNameReason(res.resourceName());
        if (bad != null) {
            r.errorCode(Errors.INVALID_TOPIC_EXCEPTION.code()).errorMessage(bad);
            return;
        }
        Topic t = broker.topics().get(res.resourceName());
        if (t == null) {
            r.errorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()).errorMessage("Topic " + res.resourceName()
                    + " does not exist.");
            return;
        }
        TopicConfigResolver configs = broker.topics().configs();
        ConfigSynonyms names = new ConfigSynonyms(broker.config(), configs.dynamic());
        List<DescribeConfigsResourceResult> out = new ArrayList<>();
        for (TopicConfigResolver.Described d : configs.describe(t.configs())) {
            if (!wanted(res.configurationKeys(), d.name())) {
                continue;
            }
            ConfigKey key = LogConfig.key(d.name());
            DescribeConfigsResourceResult c = detail.apply(new DescribeConfigsResourceResult().name(d.name())
                    .value(d.value()).readOnly(false).isSensitive(false).configSource(d.source()),
                    TopicConfigResolver.type(d.name()), key == null ? null : key.doc());
            if (synonyms) {
                c.synonyms(wire(names.ofTopicConfig(d.name(),
                        d.source() == TopicConfigResolver.SOURCE_TOPIC ? t.configs().get(d.name()) : null)));
            }
            out.add(c);
        }
        out.sort(TopicConfigOrder.comparing(DescribeConfigsResourceResult::name));
        r.configs(out);
    }

    private static List<DescribeConfigsSynonym> wire(List<ConfigSynonyms.Synonym> synonyms) {
        List<DescribeConfigsSynonym> out = new ArrayList<>(synonyms.size());
        for (ConfigSynonyms.Synonym s : synonyms) {
            out.add(new DescribeConfigsSynonym().name(s.name()).value(s.value()).source(s.source()));
        }
        return out;
    }

    private static void broker(BrokerContext broker, DescribeConfigsResource res, DescribeConfigsResult r,
            boolean synonyms, Detail detail) {
        String name = res.resourceName();
        if (!name.isEmpty() && !name.equals(Integer.toString(broker.nodeId()))) {
            r.errorCode(Errors.INVALID_REQUEST.code()).errorMessage("Unexpected broker id, expected "
                    + broker.nodeId() + " or empty string, but received " + name);
            return;
        }
        BrokerConfig config = broker.config();
        DynamicBrokerConfig dynamic = broker.topics().configs().dynamic();
        List<DescribeConfigsResourceResult> out = new ArrayList<>();
        if (name.isEmpty()) {
            // the cluster-wide default scope holds only what was set dynamically in it (as in Kafka)
            for (Map.Entry<String, String> e : dynamic.clusterDefault().entrySet()) {
                if (DynamicBrokerConfig.isCustom(e.getKey())) {
                    if (wanted(res.configurationKeys(), e.getKey())) {
                        out.add(customEntry(e.getKey(), dynamic, true, synonyms, detail));
                    }
                } else if (wanted(res.configurationKeys(), e.getKey())) {
                    DescribeConfigsResourceResult c = brokerEntry(e.getKey(), e.getValue(),
                            DynamicBrokerConfig.SOURCE_DYNAMIC_DEFAULT_BROKER, detail);
                    if (synonyms) { // the setting itself, as Kafka lists it
                        c.synonyms(List.of(new DescribeConfigsSynonym().name(e.getKey()).value(e.getValue())
                                .source(DynamicBrokerConfig.SOURCE_DYNAMIC_DEFAULT_BROKER)));
                    }
                    out.add(c);
                }
            }
            r.configs(out);
            return;
        }
        Map<String, String> inForce = dynamic.effective();
        ConfigSynonyms names = new ConfigSynonyms(config, dynamic);
        for (ConfigKey key : BrokerConfig.KEYS.values()) {
            if (!wanted(res.configurationKeys(), key.name())) {
                continue;
            }
            byte source = dynamic.source(key.name());
            String value;
            if (source != 0) {
                value = inForce.get(key.name());
            } else {
                value = ConfigSynonyms.format(config.value(key.name()));
                source = config.isExplicit(key.name()) ? TopicConfigResolver.SOURCE_STATIC_BROKER
                        : TopicConfigResolver.SOURCE_DEFAULT;
            }
            DescribeConfigsResourceResult c = brokerEntry(key.name(), value, source, detail);
            if (synonyms) {
                c.synonyms(wire(names.ofBrokerKey(key.name())));
            }
            out.add(c);
        }
        Map<String, String> changed = dynamic.broker();
        // the security settings, as written in the file or defaulted (secrets never shown, as in Kafka)
        for (SecurityConfigKeys.Entry e : SecurityConfigKeys.describe(config.securitySettings())) {
            if (wanted(res.configurationKeys(), e.name()) && !changed.containsKey(e.name())) {
                out.add(securityEntry(e, synonyms, detail));
            }
        }
        // a TLS listener's stores, a listener's connection limits and Kafka's Kerberos settings
        // changed at run time (passwords and PEM keys never shown, as in Kafka)
        for (Map.Entry<String, String> e : changed.entrySet()) {
            if ((ListenerTlsKeys.listener(e.getKey()) != null || ListenerLimitKeys.listener(e.getKey()) != null
                    || SecurityConfigKeys.KERBEROS.contains(e.getKey()))
                    && wanted(res.configurationKeys(), e.getKey())) {
                boolean secret = ListenerTlsKeys.sensitive(e.getKey());
                out.add(detail.apply(new DescribeConfigsResourceResult().name(e.getKey())
                        .value(secret ? null : e.getValue()).readOnly(false).isSensitive(secret)
                        .configSource(DynamicBrokerConfig.SOURCE_DYNAMIC_BROKER),
                        SecurityConfigKeys.type(e.getKey()).id, SecurityConfigKeys.doc(e.getKey())));
            }
        }
        for (String k : inForce.keySet()) {
            if (DynamicBrokerConfig.isCustom(k) && wanted(res.configurationKeys(), k)) {
                out.add(customEntry(k, dynamic, false, synonyms, detail));
            }
        }
        r.configs(out);
    }

    /**
     * A custom setting (one Brook does not know), described as Kafka describes the keys its
     * broker does not define: of unknown type, a secret (so no value), not changeable by its
     * definition, from the dynamic scope that holds it; synonyms are the scopes holding it (in
     * the cluster-wide default's description, that scope only).
     */
    private static DescribeConfigsResourceResult customEntry(String name, DynamicBrokerConfig dynamic,
            boolean defaultScope, boolean synonyms, Detail detail) {
        byte source = defaultScope ? DynamicBrokerConfig.SOURCE_DYNAMIC_DEFAULT_BROKER : dynamic.source(name);
        DescribeConfigsResourceResult c = detail.apply(new DescribeConfigsResourceResult().name(name).value(null)
                .readOnly(true).isSensitive(true).configSource(source), TYPE_UNKNOWN, null);
        if (synonyms) {
            List<DescribeConfigsSynonym> list = new ArrayList<>(2);
            if (!defaultScope && dynamic.broker().containsKey(name)) {
                list.add(new DescribeConfigsSynonym().name(name).value(null).source(DynamicBrokerConfig.SOURCE_DYNAMIC_BROKER));
            }
            if (dynamic.clusterDefault().containsKey(name)) {
                list.add(new DescribeConfigsSynonym().name(name).value(null)
                        .source(DynamicBrokerConfig.SOURCE_DYNAMIC_DEFAULT_BROKER));
            }
            c.synonyms(list);
        }
        return c;
    }

    private static DescribeConfigsResourceResult securityEntry(SecurityConfigKeys.Entry e, boolean synonyms,
            Detail detail) {
        byte source = e.explicit() ? TopicConfigResolver.SOURCE_STATIC_BROKER : TopicConfigResolver.SOURCE_DEFAULT;
        // writable as Kafka marks them: the TLS stores (which change per listener at run time), a
        // listener's connection limits and the Kerberos settings
        String base = ListenerTlsKeys.listener(e.name()) != null ? ListenerTlsKeys.base(e.name()) : e.name();
        boolean writable = ListenerTlsKeys.RECONFIGURABLE.contains(base) || ListenerLimitKeys.listener(e.name()) != null
                || SecurityConfigKeys.KERBEROS.contains(e.name());
        DescribeConfigsResourceResult c = detail.apply(new DescribeConfigsResourceResult().name(e.name())
                .value(e.value()).readOnly(!writable).isSensitive(e.sensitive())
                .configSource(source), e.type().id, e.doc());
        if (synonyms) {
            List<DescribeConfigsSynonym> list = new ArrayList<>(2);
            if (e.explicit()) {
                list.add(new DescribeConfigsSynonym().name(e.name()).value(e.value()).source(source));
            }
            if (e.defaultValue() != null) {
                list.add(new DescribeConfigsSynonym().name(e.name()).value(e.defaultValue())
                        .source(TopicConfigResolver.SOURCE_DEFAULT));
            }
            c.synonyms(list);
        }
        return c;
    }

    private static DescribeConfigsResourceResult brokerEntry(String name, String value, byte source, Detail detail) {
        ConfigKey key = BrokerConfig.KEYS.get(name);
        if (key == null && ListenerLimitKeys.listener(name) != null) { // set in the cluster-wide default scope
            return detail.apply(new DescribeConfigsResourceResult().name(name).value(value).readOnly(false)
                    .isSensitive(false).configSource(source), SecurityConfigKeys.type(name).id,
                    SecurityConfigKeys.doc(name));
        }
        return detail.apply(new DescribeConfigsResourceResult().name(name).value(value)
                .readOnly(!DynamicBrokerConfig.RECONFIGURABLE.contains(name)).isSensitive(false).configSource(source),
                key == null ? TopicConfigResolver.TYPE_STRING : TopicConfigResolver.type(key),
                key == null ? null : key.doc());
    }

    private static boolean wanted(List<String> keys, String name) {
        return keys == null || keys.isEmpty() || keys.contains(name);
    }
}
