package io.brook.server.api;

import io.brook.server.config.BrokerConfig;
import io.brook.server.config.DynamicBrokerConfig;
import io.brook.server.config.ListenerTlsKeys;
import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.telemetry.ClientTelemetry;
import io.brook.server.topic.ConfigSynonyms;
import io.brook.server.topic.Topic;
import io.brook.server.topic.TopicConfigResolver;
import io.brook.server.topic.TopicNames;
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
 * keys) and the TLS listeners' stores set at run time (secrets as Kafka shows them: no value,
 * flagged sensitive), the empty name the cluster-wide default scope (only what was set in it), as Kafka does;
 * for client metrics subscriptions ({@link ClientMetricsResources}).
 */
final class DescribeConfigsHandler implements ApiHandler<DescribeConfigsRequest> {

    static final byte RESOURCE_TOPIC = 2;
    static final byte RESOURCE_BROKER = 4;
    /** Kafka's ConfigType id of a PASSWORD config (DescribeConfigs v3+). */
    static final byte TYPE_PASSWORD = 9;

    private final BrokerContext broker;
    private final ClientTelemetry telemetry;

    DescribeConfigsHandler(BrokerContext broker, ClientTelemetry telemetry) {
        this.broker = broker;
        this.telemetry = telemetry;
    }

    @Override
    public void handle(RequestContext ctx, DescribeConfigsRequest request) {
        short version = ctx.apiVersion();
        List<DescribeConfigsResult> results = new ArrayList<>();
        for (DescribeConfigsResource res : request.resources()) {
            DescribeConfigsResult r = new DescribeConfigsResult().resourceType(res.resourceType())
                    .resourceName(res.resourceName()).errorCode(Errors.NONE.code()).errorMessage(null);
            switch (res.resourceType()) {
                case RESOURCE_TOPIC -> topic(broker, res, r, request.includeSynonyms() && version >= 1, version);
                case RESOURCE_BROKER -> broker(broker, res, r, request.includeSynonyms() && version >= 1, version);
                case BrokerLoggers.RESOURCE_BROKER_LOGGER -> BrokerLoggers.describe(broker, res, r);
                case ClientMetricsResources.RESOURCE_CLIENT_METRICS -> ClientMetricsResources.describe(telemetry, res, r);
                default -> r.errorCode(Errors.INVALID_REQUEST.code())
                        .errorMessage("Unsupported resource type " + res.resourceType());
            }
            results.add(r);
        }
        ctx.respond(new DescribeConfigsResponse().results(results));
    }

    private static void topic(BrokerContext broker, DescribeConfigsResource res, DescribeConfigsResult r,
            boolean synonyms, short version) {
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
            DescribeConfigsResourceResult c = new DescribeConfigsResourceResult().name(d.name()).value(d.value())
                    .readOnly(false).isSensitive(false).configSource(d.source());
            if (version >= 3) {
                c.configType(TopicConfigResolver.type(d.name()));
            }
            if (synonyms) {
                c.synonyms(wire(names.ofTopicConfig(d.name(),
                        d.source() == TopicConfigResolver.SOURCE_TOPIC ? t.configs().get(d.name()) : null)));
            }
            out.add(c);
        }
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
            boolean synonyms, short version) {
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
                if (wanted(res.configurationKeys(), e.getKey())) {
                    out.add(brokerEntry(e.getKey(), e.getValue(), DynamicBrokerConfig.SOURCE_DYNAMIC_DEFAULT_BROKER,
                            version));
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
            DescribeConfigsResourceResult c = brokerEntry(key.name(), value, source, version);
            if (synonyms) {
                c.synonyms(wire(names.ofBrokerKey(key.name())));
            }
            out.add(c);
        }
        // a TLS listener's stores changed at run time (passwords and PEM keys never shown, as in Kafka)
        for (Map.Entry<String, String> e : dynamic.broker().entrySet()) {
            if (ListenerTlsKeys.listener(e.getKey()) != null && wanted(res.configurationKeys(), e.getKey())) {
                boolean secret = ListenerTlsKeys.sensitive(e.getKey());
                DescribeConfigsResourceResult c = new DescribeConfigsResourceResult().name(e.getKey())
                        .value(secret ? null : e.getValue()).readOnly(false).isSensitive(secret)
                        .configSource(DynamicBrokerConfig.SOURCE_DYNAMIC_BROKER);
                if (version >= 3) {
                    c.configType(secret ? TYPE_PASSWORD : TopicConfigResolver.TYPE_STRING);
                }
                out.add(c);
            }
        }
        r.configs(out);
    }

    private static DescribeConfigsResourceResult brokerEntry(String name, String value, byte source, short version) {
        DescribeConfigsResourceResult c = new DescribeConfigsResourceResult().name(name).value(value)
                .readOnly(!DynamicBrokerConfig.RECONFIGURABLE.contains(name)).isSensitive(false).configSource(source);
        ConfigKey key = BrokerConfig.KEYS.get(name);
        if (version >= 3 && key != null) {
            c.configType(TopicConfigResolver.type(key));
        }
        return c;
    }

    private static boolean wanted(List<String> keys, String name) {
        return keys == null || keys.isEmpty() || keys.contains(name);
    }
}
