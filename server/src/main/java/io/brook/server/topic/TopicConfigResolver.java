package io.brook.server.topic;

import io.brook.server.config.BrokerConfig;
import io.brook.server.config.DynamicBrokerConfig;
import io.brook.storage.LogConfig;
import io.brook.storage.config.ConfigKey;
import io.brook.storage.config.InvalidConfigException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Topic configs and where their values come from. A topic's effective config is, from lowest to
 * highest precedence: Kafka's default ({@link LogConfig#defaults()}), the broker's setting under
 * its broker name (e.g. {@code log.retention.hours} for {@code retention.ms}), the topic's own
 * override. The storage module's {@link LogConfig} is the one place that validates values.
 */
public final class TopicConfigResolver {

    /** DescribeConfigs config sources (Kafka's ConfigSource ids). */
    public static final byte SOURCE_TOPIC = 1;
    public static final byte SOURCE_STATIC_BROKER = 4;
    public static final byte SOURCE_DEFAULT = 5;

    /** DescribeConfigs config types (Kafka's ConfigType ids). */
    public static final byte TYPE_BOOLEAN = 1;
    public static final byte TYPE_STRING = 2;
    public static final byte TYPE_INT = 3;
    public static final byte TYPE_SHORT = 4;
    public static final byte TYPE_LONG = 5;
    public static final byte TYPE_DOUBLE = 6;
    public static final byte TYPE_LIST = 7;

    /** The longest value a topic config may have (the registry stores it with a 64 KiB bound). */
    public static final int MAX_VALUE_CHARS = TopicRegistry.MAX_CONFIG_VALUE_CHARS;

    /** One described value. {@code brokerSynonym} is the broker key it came from, or null. */
    public record Described(String name, String value, byte source, String brokerSynonym, String brokerValue) {
    }

    private final BrokerConfig broker;
    private final DynamicBrokerConfig dynamic;
    private volatile Derived derived;

    /**
     * What the broker settings make of the topic configs: for each topic config with a broker
     * synonym, the broker key that sets its default and the value it gives. Immutable.
     */
    private record Derived(Map<String, String> synonyms, Map<String, String> brokerValues, LogConfig base) {
    }

    public TopicConfigResolver(BrokerConfig broker) {
        this(broker, DynamicBrokerConfig.none());
    }

    /** With the broker settings changed at run time ({@code dynamic}) over the static ones. */
    public TopicConfigResolver(BrokerConfig broker, DynamicBrokerConfig dynamic) {
        this.broker = broker;
        this.dynamic = dynamic;
        this.derived = derive(dynamic.effective());
    }

    /** The broker settings changed at run time. */
    public DynamicBrokerConfig dynamic() {
        return dynamic;
    }

    /**
     * Null when the topic defaults these dynamic broker settings give are valid, else why not
     * (e.g. a {@code log.segment.bytes} below the topic minimum).
     */
    public String invalidDynamic(Map<String, String> dynamicSettings) {
        try {
            derive(dynamicSettings);
            return null;
        } catch (InvalidConfigException e) {
            return e.getMessage();
        } catch (IllegalArgumentException e) {
            return "Invalid broker config: " + e.getMessage();
        }
    }

    /** Takes these dynamic broker settings (validated) as the topics' defaults from now on. */
    public void reconfigure(Map<String, String> dynamicSettings) {
        this.derived = derive(dynamicSettings);
    }

    private Derived derive(Map<String, String> dyn) {
        Map<String, String> synonyms = new LinkedHashMap<>();
        Map<String, String> values = new LinkedHashMap<>();
        java.util.function.BiConsumer<String, String> fromKey = (topicName, brokerKey) -> {
            synonyms.put(topicName, brokerKey);
            values.put(topicName, dyn.containsKey(brokerKey) ? dyn.get(brokerKey) : broker.string(brokerKey));
        };
        Derivation oneOfUnits = (topicName, dynamicKey, staticKey, staticValue) -> {
            // a key of several units: its main form when set at run time, else the form in force
            boolean changed = dyn.containsKey(dynamicKey);
            synonyms.put(topicName, changed ? dynamicKey : staticKey);
            values.put(topicName, changed ? dyn.get(dynamicKey) : staticValue);
        };
        oneOfUnits.put(LogConfig.RETENTION_MS, BrokerConfig.LOG_RETENTION_MS, retentionKey(),
                Long.toString(broker.retentionMs()));
        fromKey.accept(LogConfig.RETENTION_BYTES, BrokerConfig.LOG_RETENTION_BYTES);
        fromKey.accept(LogConfig.SEGMENT_BYTES, BrokerConfig.LOG_SEGMENT_BYTES);
        oneOfUnits.put(LogConfig.SEGMENT_MS, BrokerConfig.LOG_ROLL_MS,
                broker.value(BrokerConfig.LOG_ROLL_MS) != null ? BrokerConfig.LOG_ROLL_MS : BrokerConfig.LOG_ROLL_HOURS,
                Long.toString(broker.rollMs()));
        oneOfUnits.put(LogConfig.CLEANUP_POLICY, BrokerConfig.LOG_CLEANUP_POLICY, BrokerConfig.LOG_CLEANUP_POLICY,
                String.join(",", broker.list(BrokerConfig.LOG_CLEANUP_POLICY)));
        fromKey.accept(LogConfig.MAX_MESSAGE_BYTES, BrokerConfig.MESSAGE_MAX_BYTES);
        fromKey.accept(LogConfig.COMPRESSION_TYPE, BrokerConfig.COMPRESSION_TYPE);
        fromKey.accept(LogConfig.COMPRESSION_GZIP_LEVEL, BrokerConfig.COMPRESSION_GZIP_LEVEL);
        fromKey.accept(LogConfig.COMPRESSION_LZ4_LEVEL, BrokerConfig.COMPRESSION_LZ4_LEVEL);
        fromKey.accept(LogConfig.COMPRESSION_ZSTD_LEVEL, BrokerConfig.COMPRESSION_ZSTD_LEVEL);
        fromKey.accept(LogConfig.MAX_DECOMPRESSED_MESSAGE_BYTES, BrokerConfig.MAX_DECOMPRESSED_MESSAGE_BYTES);
        fromKey.accept(LogConfig.LOCAL_RETENTION_MS, BrokerConfig.LOG_LOCAL_RETENTION_MS);
        fromKey.accept(LogConfig.LOCAL_RETENTION_BYTES, BrokerConfig.LOG_LOCAL_RETENTION_BYTES);
        fromKey.accept(LogConfig.REMOTE_COPY_LAG_MS, BrokerConfig.LOG_REMOTE_COPY_LAG_MS);
        fromKey.accept(LogConfig.REMOTE_COPY_LAG_BYTES, BrokerConfig.LOG_REMOTE_COPY_LAG_BYTES);
        fromKey.accept(LogConfig.MESSAGE_TIMESTAMP_TYPE, BrokerConfig.LOG_MESSAGE_TIMESTAMP_TYPE);
        fromKey.accept(LogConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS, BrokerConfig.LOG_MESSAGE_TIMESTAMP_BEFORE_MAX_MS);
        fromKey.accept(LogConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS, BrokerConfig.LOG_MESSAGE_TIMESTAMP_AFTER_MAX_MS);
        fromKey.accept(LogConfig.MIN_INSYNC_REPLICAS, BrokerConfig.MIN_INSYNC_REPLICAS);
        oneOfUnits.put(LogConfig.FLUSH_ON_ACK, BrokerConfig.FSYNC_ON_ACK, BrokerConfig.FSYNC_ON_ACK,
                Boolean.toString(broker.fsyncOnAck()));
        fromKey.accept(LogConfig.DELETE_RETENTION_MS, BrokerConfig.LOG_CLEANER_DELETE_RETENTION_MS);
        fromKey.accept(LogConfig.MIN_COMPACTION_LAG_MS, BrokerConfig.LOG_CLEANER_MIN_COMPACTION_LAG_MS);
        fromKey.accept(LogConfig.MAX_COMPACTION_LAG_MS, BrokerConfig.LOG_CLEANER_MAX_COMPACTION_LAG_MS);
        fromKey.accept(LogConfig.MIN_CLEANABLE_DIRTY_RATIO, BrokerConfig.LOG_CLEANER_MIN_CLEANABLE_RATIO);
        fromKey.accept(LogConfig.PREALLOCATE, BrokerConfig.LOG_PREALLOCATE);
        fromKey.accept(LogConfig.UNCLEAN_LEADER_ELECTION_ENABLE, BrokerConfig.UNCLEAN_LEADER_ELECTION_ENABLE);
        oneOfUnits.put(LogConfig.SEGMENT_JITTER_MS, BrokerConfig.LOG_ROLL_JITTER_MS,
                broker.value(BrokerConfig.LOG_ROLL_JITTER_MS) != null ? BrokerConfig.LOG_ROLL_JITTER_MS
                        : BrokerConfig.LOG_ROLL_JITTER_HOURS, Long.toString(broker.rollJitterMs()));
        fromKey.accept(LogConfig.INDEX_INTERVAL_BYTES, BrokerConfig.LOG_INDEX_INTERVAL_BYTES);
        fromKey.accept(LogConfig.SEGMENT_INDEX_BYTES, BrokerConfig.LOG_INDEX_SIZE_MAX_BYTES);
        fromKey.accept(LogConfig.FLUSH_MESSAGES, BrokerConfig.LOG_FLUSH_INTERVAL_MESSAGES);
        if (broker.value(BrokerConfig.LOG_FLUSH_INTERVAL_MS) != null || dyn.containsKey(BrokerConfig.LOG_FLUSH_INTERVAL_MS)) {
            fromKey.accept(LogConfig.FLUSH_MS, BrokerConfig.LOG_FLUSH_INTERVAL_MS);
        }
        fromKey.accept(LogConfig.FILE_DELETE_DELAY_MS, BrokerConfig.LOG_SEGMENT_DELETE_DELAY_MS);
        return new Derived(Map.copyOf(synonyms), Collections.unmodifiableMap(values), LogConfig.defaults().with(values));
    }

    /** How a topic config takes its default from a broker key that has a parsed value of its own. */
    @FunctionalInterface
    private interface Derivation {
        void put(String topicName, String dynamicKey, String staticKey, String staticValue);
    }

    private String retentionKey() {
        if (broker.value(BrokerConfig.LOG_RETENTION_MS) != null) {
            return BrokerConfig.LOG_RETENTION_MS;
        }
        return broker.value(BrokerConfig.LOG_RETENTION_MINUTES) != null ? BrokerConfig.LOG_RETENTION_MINUTES
                : BrokerConfig.LOG_RETENTION_HOURS;
    }

    /** The effective storage config of a topic with these overrides. Throws for invalid ones. */
    public LogConfig effective(Map<String, String> overrides) {
        return derived.base().with(overrides);
    }

    /** Null when the overrides are valid topic configs, else a message for INVALID_CONFIG. */
    public String invalid(Map<String, String> overrides) {
        for (Map.Entry<String, String> e : overrides.entrySet()) {
            if (e.getValue() == null) {
                return "Null value not supported for topic config " + e.getKey();
            }
            if (e.getValue().length() > TopicRegistry.MAX_CONFIG_VALUE_CHARS) {
                return "Value of topic config " + e.getKey() + " is too long";
            }
        }
        try {
            // every value parsed and in range first, then the rules on what a client may ask for (Kafka's order)
            derived.base().with(overrides);
            LogConfig.checkRequested(overrides);
            return null;
        } catch (InvalidConfigException e) {
            return e.getMessage();
        } catch (IllegalArgumentException e) {
            return "Invalid topic config: " + e.getMessage();
        }
    }

    public static boolean isTopicConfig(String name) {
        return LogConfig.names().contains(name);
    }

    /** Every topic config of a topic with value and source, in a stable order. */
    public List<Described> describe(Map<String, String> overrides) {
        Derived d = derived;
        LogConfig eff = d.base().with(overrides);
        List<Described> out = new ArrayList<>();
        for (String name : LogConfig.names()) {
            String value = eff.values().get(name);
            String syn = d.synonyms().get(name);
            byte source;
            if (overrides.containsKey(name)) {
                source = SOURCE_TOPIC;
            } else if (syn != null && dynamic.source(syn) != 0) {
                source = dynamic.source(syn);
            } else if (syn != null && broker.isExplicit(syn)) {
                source = SOURCE_STATIC_BROKER;
            } else {
                source = SOURCE_DEFAULT;
            }
            out.add(new Described(name, value, source, syn, syn == null ? null : d.brokerValues().get(name)));
        }
        return out;
    }

    /** Whether a broker key was set explicitly, in the file or at run time (for the synonym's source). */
    public boolean brokerExplicit(String brokerKey) {
        return broker.isExplicit(brokerKey) || dynamic.source(brokerKey) != 0;
    }

    /** The DescribeConfigs type of a topic config, from its definition ({@link #TYPE_STRING} for an unknown name). */
    public static byte type(String topicConfig) {
        ConfigKey key = LogConfig.key(topicConfig);
        return key == null ? TYPE_STRING : type(key);
    }

    public static byte type(ConfigKey key) {
        return switch (key.type()) {
            case BOOLEAN -> TYPE_BOOLEAN;
            case STRING -> TYPE_STRING;
            case INT -> TYPE_INT;
            case SHORT -> TYPE_SHORT;
            case LONG -> TYPE_LONG;
            case DOUBLE -> TYPE_DOUBLE;
            case LIST -> TYPE_LIST;
        };
    }
}
