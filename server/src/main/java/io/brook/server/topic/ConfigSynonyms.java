package io.brook.server.topic;

import io.brook.server.config.BrokerConfig;
import io.brook.server.config.DynamicBrokerConfig;
import io.brook.storage.LogConfig;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * The synonyms DescribeConfigs lists for a config (with {@code include_synonyms}), as Kafka
 * lists them: every broker key that can set it, each where it is set, from the highest
 * precedence to the lowest (this broker's dynamic settings, the cluster-wide dynamic default,
 * the properties file, the key's default), each value in its own key's units ({@code
 * log.retention.hours} shows hours). As in Kafka the list starts at the first entry of the
 * config's main broker key: when that key is set nowhere and has no default (e.g. {@code
 * log.retention.ms}, whose default comes from {@code log.retention.hours}), the list is empty,
 * rather than naming a lower key whose value would not say what the config is.
 */
public final class ConfigSynonyms {

    /** One synonym: a key, its value there (null for a secret), and that place's config source id. */
    public record Synonym(String name, String value, byte source) {
    }

    /** The broker keys behind a topic config, the main one first (Kafka's list; in Kafka 4.4 all of them). */
    private static final Map<String, List<String>> TOPIC = Map.ofEntries(
            Map.entry(LogConfig.SEGMENT_BYTES, List.of("log.segment.bytes")),
            Map.entry(LogConfig.SEGMENT_MS, List.of("log.roll.ms", "log.roll.hours")),
            Map.entry(LogConfig.SEGMENT_JITTER_MS, List.of("log.roll.jitter.ms", "log.roll.jitter.hours")),
            Map.entry(LogConfig.SEGMENT_INDEX_BYTES, List.of("log.index.size.max.bytes")),
            Map.entry(LogConfig.FLUSH_MESSAGES, List.of("log.flush.interval.messages")),
            Map.entry(LogConfig.FLUSH_MS, List.of("log.flush.interval.ms", "log.flush.scheduler.interval.ms")),
            Map.entry(LogConfig.RETENTION_BYTES, List.of("log.retention.bytes")),
            Map.entry(LogConfig.RETENTION_MS, List.of("log.retention.ms", "log.retention.minutes",
                    "log.retention.hours")),
            Map.entry(LogConfig.MAX_MESSAGE_BYTES, List.of("message.max.bytes")),
            Map.entry(LogConfig.MAX_DECOMPRESSED_MESSAGE_BYTES, List.of("max.decompressed.message.bytes")),
            Map.entry(LogConfig.INDEX_INTERVAL_BYTES, List.of("log.index.interval.bytes")),
            Map.entry(LogConfig.DELETE_RETENTION_MS, List.of("log.cleaner.delete.retention.ms")),
            Map.entry(LogConfig.MIN_COMPACTION_LAG_MS, List.of("log.cleaner.min.compaction.lag.ms")),
            Map.entry(LogConfig.MAX_COMPACTION_LAG_MS, List.of("log.cleaner.max.compaction.lag.ms")),
            Map.entry(LogConfig.FILE_DELETE_DELAY_MS, List.of("log.segment.delete.delay.ms")),
            Map.entry(LogConfig.MIN_CLEANABLE_DIRTY_RATIO, List.of("log.cleaner.min.cleanable.ratio")),
            Map.entry(LogConfig.CLEANUP_POLICY, List.of("log.cleanup.policy")),
            Map.entry(LogConfig.UNCLEAN_LEADER_ELECTION_ENABLE, List.of("unclean.leader.election.enable")),
            Map.entry(LogConfig.MIN_INSYNC_REPLICAS, List.of("min.insync.replicas")),
            Map.entry(LogConfig.COMPRESSION_TYPE, List.of("compression.type")),
            Map.entry(LogConfig.COMPRESSION_GZIP_LEVEL, List.of("compression.gzip.level")),
            Map.entry(LogConfig.COMPRESSION_LZ4_LEVEL, List.of("compression.lz4.level")),
            Map.entry(LogConfig.COMPRESSION_ZSTD_LEVEL, List.of("compression.zstd.level")),
            Map.entry(LogConfig.PREALLOCATE, List.of("log.preallocate")),
            Map.entry(LogConfig.MESSAGE_TIMESTAMP_TYPE, List.of("log.message.timestamp.type")),
            Map.entry(LogConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS, List.of("log.message.timestamp.before.max.ms")),
            Map.entry(LogConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS, List.of("log.message.timestamp.after.max.ms")),
            Map.entry(LogConfig.LOCAL_RETENTION_MS, List.of("log.local.retention.ms")),
            Map.entry(LogConfig.LOCAL_RETENTION_BYTES, List.of("log.local.retention.bytes")),
            Map.entry(LogConfig.REMOTE_COPY_LAG_MS, List.of("log.remote.copy.lag.ms")),
            Map.entry(LogConfig.REMOTE_COPY_LAG_BYTES, List.of("log.remote.copy.lag.bytes")),
            // Brook's own
            Map.entry(LogConfig.FLUSH_ON_ACK, List.of(BrokerConfig.FSYNC_ON_ACK)));

    /** The broker keys behind a broker key of several units, the main one first (else the key alone). */
    private static final Map<String, List<String>> BROKER = Map.of(
            "log.roll.ms", List.of("log.roll.ms", "log.roll.hours"),
            "log.roll.hours", List.of("log.roll.ms", "log.roll.hours"),
            "log.roll.jitter.ms", List.of("log.roll.jitter.ms", "log.roll.jitter.hours"),
            "log.roll.jitter.hours", List.of("log.roll.jitter.ms", "log.roll.jitter.hours"),
            "log.retention.ms", List.of("log.retention.ms", "log.retention.minutes", "log.retention.hours"),
            "log.retention.minutes", List.of("log.retention.ms", "log.retention.minutes", "log.retention.hours"),
            "log.retention.hours", List.of("log.retention.ms", "log.retention.minutes", "log.retention.hours"),
            "log.flush.interval.ms", List.of("log.flush.interval.ms", "log.flush.scheduler.interval.ms"));

    private static final BrokerConfig DEFAULTS = BrokerConfig.defaults();

    private final BrokerConfig broker;
    private final DynamicBrokerConfig dynamic;

    public ConfigSynonyms(BrokerConfig broker, DynamicBrokerConfig dynamic) {
        this.broker = broker;
        this.dynamic = dynamic;
    }

    /**
     * A topic config's synonyms: its own override first when the topic has one ({@code
     * override}, else null), then the broker keys behind it.
     */
    public List<Synonym> ofTopicConfig(String name, String override) {
        List<Synonym> out = new ArrayList<>();
        if (override != null) {
            out.add(new Synonym(name, override, TopicConfigResolver.SOURCE_TOPIC));
        }
        List<String> keys = TOPIC.get(name);
        if (keys != null) {
            out.addAll(listed(keys, keys.get(0)));
        }
        return out;
    }

    /**
     * A broker key's synonyms: itself where it is set, then the keys of other units below it
     * ({@code log.retention.minutes} lists itself and {@code log.retention.hours}).
     */
    public List<Synonym> ofBrokerKey(String name) {
        return listed(BROKER.getOrDefault(name, List.of(name)), name);
    }

    /** Where {@code keys} are set, highest precedence first, from the first entry of {@code main} on. */
    private List<Synonym> listed(List<String> keys, String main) {
        List<Synonym> all = new ArrayList<>();
        Map<String, String> own = dynamic.broker();
        Map<String, String> clusterDefault = dynamic.clusterDefault();
        for (String k : keys) {
            if (own.containsKey(k)) {
                all.add(new Synonym(k, own.get(k), DynamicBrokerConfig.SOURCE_DYNAMIC_BROKER));
            }
        }
        for (String k : keys) {
            if (clusterDefault.containsKey(k)) {
                all.add(new Synonym(k, clusterDefault.get(k), DynamicBrokerConfig.SOURCE_DYNAMIC_DEFAULT_BROKER));
            }
        }
        for (String k : keys) {
            if (broker.isExplicit(k)) {
                all.add(new Synonym(k, format(broker.value(k)), TopicConfigResolver.SOURCE_STATIC_BROKER));
            }
        }
        for (String k : keys) {
            String value = format(DEFAULTS.value(k));
            if (value != null) {
                all.add(new Synonym(k, value, TopicConfigResolver.SOURCE_DEFAULT));
            }
        }
        int first = 0;
        while (first < all.size() && !all.get(first).name().equals(main)) {
            first++;
        }
        return all.subList(first, all.size());
    }

    /** A parsed config value as DescribeConfigs shows it (a list comma-separated), or null. */
    public static String format(Object v) {
        if (v == null) {
            return null;
        }
        if (v instanceof Collection<?> c) {
            StringBuilder sb = new StringBuilder();
            for (Object o : c) {
                if (sb.length() > 0) {
                    sb.append(',');
                }
                sb.append(o);
            }
            return sb.toString();
        }
        return v.toString();
    }
}
