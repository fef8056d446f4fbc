package io.brook.storage;

import io.brook.storage.config.InvalidConfigException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A topic's storage settings, with Kafka's names and defaults. Immutable; build with
 * {@link #defaults()} and {@link #with(Map)}. Values arrive as strings (from CreateTopics,
 * AlterConfigs, a properties file) or as numbers; every value is checked and a bad one is
 * rejected with {@link InvalidConfigException} naming the setting.
 *
 * <p>Settings Brook stores but does not act on (replication, throttling, compression re-encoding)
 * are accepted with their Kafka defaults so that tools that read or write them keep working.
 */
public final class LogConfig {
    public static final String SEGMENT_BYTES = "segment.bytes";
    public static final String SEGMENT_MS = "segment.ms";
    public static final String SEGMENT_JITTER_MS = "segment.jitter.ms";
    public static final String SEGMENT_INDEX_BYTES = "segment.index.bytes";
    public static final String INDEX_INTERVAL_BYTES = "index.interval.bytes";
    public static final String RETENTION_MS = "retention.ms";
    public static final String RETENTION_BYTES = "retention.bytes";
    public static final String CLEANUP_POLICY = "cleanup.policy";
    public static final String MIN_COMPACTION_LAG_MS = "min.compaction.lag.ms";
    public static final String MAX_COMPACTION_LAG_MS = "max.compaction.lag.ms";
    public static final String DELETE_RETENTION_MS = "delete.retention.ms";
    public static final String MIN_CLEANABLE_DIRTY_RATIO = "min.cleanable.dirty.ratio";
    public static final String MAX_MESSAGE_BYTES = "max.message.bytes";
    public static final String MESSAGE_TIMESTAMP_TYPE = "message.timestamp.type";
    public static final String FLUSH_MS = "flush.ms";
    public static final String FLUSH_MESSAGES = "flush.messages";
    public static final String FILE_DELETE_DELAY_MS = "file.delete.delay.ms";
    public static final String COMPRESSION_TYPE = "compression.type";
    public static final String MIN_INSYNC_REPLICAS = "min.insync.replicas";
    public static final String UNCLEAN_LEADER_ELECTION_ENABLE = "unclean.leader.election.enable";
    public static final String PREALLOCATE = "preallocate";
    public static final String MESSAGE_TIMESTAMP_BEFORE_MAX_MS = "message.timestamp.before.max.ms";
    public static final String MESSAGE_TIMESTAMP_AFTER_MAX_MS = "message.timestamp.after.max.ms";
    /**
     * Brook's own setting: when true (the default) a write counts as durable, and becomes visible
     * below the high watermark, only once it is fsynced; when false the page cache is trusted as
     * Kafka does by default and the high watermark is the log end.
     */
    public static final String FLUSH_ON_ACK = "brook.flush.on.ack";

    private static final Map<String, String> DEFAULTS;

    static {
        Map<String, String> d = new LinkedHashMap<>();
        d.put(SEGMENT_BYTES, "1073741824");
        d.put(SEGMENT_MS, "604800000");
        d.put(SEGMENT_JITTER_MS, "0");
        d.put(SEGMENT_INDEX_BYTES, "10485760");
        d.put(INDEX_INTERVAL_BYTES, "4096");
        d.put(RETENTION_MS, "604800000");
        d.put(RETENTION_BYTES, "-1");
        d.put(CLEANUP_POLICY, "delete");
        d.put(MIN_COMPACTION_LAG_MS, "0");
        d.put(MAX_COMPACTION_LAG_MS, Long.toString(Long.MAX_VALUE));
        d.put(DELETE_RETENTION_MS, "86400000");
        d.put(MIN_CLEANABLE_DIRTY_RATIO, "0.5");
        d.put(MAX_MESSAGE_BYTES, "1048588");
        d.put(MESSAGE_TIMESTAMP_TYPE, "CreateTime");
        d.put(FLUSH_MS, Long.toString(Long.MAX_VALUE));
        d.put(FLUSH_MESSAGES, Long.toString(Long.MAX_VALUE));
        d.put(FILE_DELETE_DELAY_MS, "60000");
        d.put(COMPRESSION_TYPE, "producer");
        d.put(MIN_INSYNC_REPLICAS, "1");
        d.put(UNCLEAN_LEADER_ELECTION_ENABLE, "false");
        d.put(PREALLOCATE, "false");
        d.put(MESSAGE_TIMESTAMP_BEFORE_MAX_MS, Long.toString(Long.MAX_VALUE));
        d.put(MESSAGE_TIMESTAMP_AFTER_MAX_MS, Long.toString(Long.MAX_VALUE));
        d.put(FLUSH_ON_ACK, "true");
        DEFAULTS = Collections.unmodifiableMap(d);
    }

    private static final LogConfig DEFAULT = new LogConfig(Map.of());

    private final Map<String, String> overrides;
    private final Map<String, String> values;

    private final int segmentBytes;
    private final long segmentMs;
    private final long segmentJitterMs;
    private final int segmentIndexBytes;
    private final int indexIntervalBytes;
    private final long retentionMs;
    private final long retentionBytes;
    private final boolean compact;
    private final boolean delete;
    private final long minCompactionLagMs;
    private final long maxCompactionLagMs;
    private final long deleteRetentionMs;
    private final double minCleanableDirtyRatio;
    private final int maxMessageBytes;
    private final boolean logAppendTime;
    private final long flushMs;
    private final long flushMessages;
    private final long fileDeleteDelayMs;
    private final long timestampBeforeMaxMs;
    private final long timestampAfterMaxMs;
    private final boolean flushOnAck;

    private LogConfig(Map<String, String> overrides) {
        this.overrides = Collections.unmodifiableMap(new LinkedHashMap<>(overrides));
        Map<String, String> v = new LinkedHashMap<>(DEFAULTS);
        v.putAll(overrides);
        this.values = Collections.unmodifiableMap(v);
        segmentBytes = intIn(v, SEGMENT_BYTES, 14, Integer.MAX_VALUE);
        segmentMs = longIn(v, SEGMENT_MS, 1, Long.MAX_VALUE);
        segmentJitterMs = longIn(v, SEGMENT_JITTER_MS, 0, Long.MAX_VALUE);
        segmentIndexBytes = intIn(v, SEGMENT_INDEX_BYTES, TimeIndex.ENTRY_SIZE, Integer.MAX_VALUE);
        indexIntervalBytes = intIn(v, INDEX_INTERVAL_BYTES, 0, Integer.MAX_VALUE);
        retentionMs = longIn(v, RETENTION_MS, -1, Long.MAX_VALUE);
        retentionBytes = longIn(v, RETENTION_BYTES, Long.MIN_VALUE, Long.MAX_VALUE);
        boolean c = false;
        boolean d = false;
        String policy = v.get(CLEANUP_POLICY).trim();
        if (!policy.isEmpty()) {
            for (String p : policy.split(",")) {
                switch (p.trim().toLowerCase(Locale.ROOT)) {
                    case "compact" -> c = true;
                    case "delete" -> d = true;
                    default -> throw new InvalidConfigException(CLEANUP_POLICY, policy,
                            "must be a list of 'delete' and 'compact'");
                }
            }
        }
        compact = c;
        delete = d;
        minCompactionLagMs = longIn(v, MIN_COMPACTION_LAG_MS, 0, Long.MAX_VALUE);
        maxCompactionLagMs = longIn(v, MAX_COMPACTION_LAG_MS, 1, Long.MAX_VALUE);
        deleteRetentionMs = longIn(v, DELETE_RETENTION_MS, 0, Long.MAX_VALUE);
        minCleanableDirtyRatio = doubleIn(v, MIN_CLEANABLE_DIRTY_RATIO, 0.0, 1.0);
        maxMessageBytes = intIn(v, MAX_MESSAGE_BYTES, 0, Integer.MAX_VALUE);
        String tt = v.get(MESSAGE_TIMESTAMP_TYPE).trim();
        if (tt.equals("LogAppendTime")) {
            logAppendTime = true;
        } else if (tt.equals("CreateTime")) {
            logAppendTime = false;
        } else {
            throw new InvalidConfigException(MESSAGE_TIMESTAMP_TYPE, tt, "must be CreateTime or LogAppendTime");
        }
        flushMs = longIn(v, FLUSH_MS, 0, Long.MAX_VALUE);
        flushMessages = longIn(v, FLUSH_MESSAGES, 1, Long.MAX_VALUE);
        fileDeleteDelayMs = longIn(v, FILE_DELETE_DELAY_MS, 0, Long.MAX_VALUE);
        String ct = v.get(COMPRESSION_TYPE).trim();
        if (!Set.of("producer", "uncompressed", "gzip", "snappy", "lz4", "zstd").contains(ct)) {
            throw new InvalidConfigException(COMPRESSION_TYPE, ct,
                    "must be one of producer, uncompressed, gzip, snappy, lz4, zstd");
        }
        intIn(v, MIN_INSYNC_REPLICAS, 1, Integer.MAX_VALUE);
        bool(v, UNCLEAN_LEADER_ELECTION_ENABLE);
        bool(v, PREALLOCATE);
        timestampBeforeMaxMs = longIn(v, MESSAGE_TIMESTAMP_BEFORE_MAX_MS, 0, Long.MAX_VALUE);
        timestampAfterMaxMs = longIn(v, MESSAGE_TIMESTAMP_AFTER_MAX_MS, 0, Long.MAX_VALUE);
        flushOnAck = bool(v, FLUSH_ON_ACK);
    }

    /** Kafka's defaults (plus Brook's fsync-on-ack). */
    public static LogConfig defaults() {
        return DEFAULT;
    }

    /** The names this class knows, in a stable order. */
    public static Set<String> names() {
        return DEFAULTS.keySet();
    }

    /** The default value of a setting as a string, or null for an unknown name. */
    public static String defaultValue(String name) {
        return DEFAULTS.get(name);
    }

    /**
     * A copy with the given settings replaced; values may be strings or numbers, a null value
     * restores the default. Throws {@link InvalidConfigException} for an unknown name or bad value.
     */
    public LogConfig with(Map<String, ?> changes) {
        Map<String, String> o = new LinkedHashMap<>(overrides);
        for (Map.Entry<String, ?> e : changes.entrySet()) {
            if (!DEFAULTS.containsKey(e.getKey())) {
                throw new InvalidConfigException(e.getKey(), String.valueOf(e.getValue()), "unknown topic config name");
            }
            if (e.getValue() == null) {
                o.remove(e.getKey());
            } else {
                o.put(e.getKey(), String.valueOf(e.getValue()).trim());
            }
        }
        return new LogConfig(o);
    }

    /** Every setting with its effective value. */
    public Map<String, String> values() {
        return values;
    }

    /** Only the settings that differ from the defaults because they were set. */
    public Map<String, String> overrides() {
        return overrides;
    }

    public int segmentBytes() { return segmentBytes; }
    public long segmentMs() { return segmentMs; }
    public long segmentJitterMs() { return segmentJitterMs; }
    public int segmentIndexBytes() { return segmentIndexBytes; }
    public int indexIntervalBytes() { return indexIntervalBytes; }
    public long retentionMs() { return retentionMs; }
    public long retentionBytes() { return retentionBytes; }
    public boolean compact() { return compact; }
    public boolean delete() { return delete; }
    public long minCompactionLagMs() { return minCompactionLagMs; }
    public long maxCompactionLagMs() { return maxCompactionLagMs; }
    public long deleteRetentionMs() { return deleteRetentionMs; }
    public double minCleanableDirtyRatio() { return minCleanableDirtyRatio; }
    public int maxMessageBytes() { return maxMessageBytes; }
    public boolean logAppendTime() { return logAppendTime; }
    public long flushMs() { return flushMs; }
    public long flushMessages() { return flushMessages; }
    public long fileDeleteDelayMs() { return fileDeleteDelayMs; }
    public long timestampBeforeMaxMs() { return timestampBeforeMaxMs; }
    public long timestampAfterMaxMs() { return timestampAfterMaxMs; }
    public boolean flushOnAck() { return flushOnAck; }

    @Override
    public boolean equals(Object o) {
        return o instanceof LogConfig other && values.equals(other.values);
    }

    @Override
    public int hashCode() {
        return values.hashCode();
    }

    @Override
    public String toString() {
        return "LogConfig" + overrides;
    }

    private static long longIn(Map<String, String> v, String name, long min, long max) {
        String s = v.get(name);
        long x;
        try {
            x = Long.parseLong(s.trim());
        } catch (NumberFormatException e) {
            throw new InvalidConfigException(name, s, "not a whole number");
        }
        if (x < min || x > max) {
            throw new InvalidConfigException(name, s, "must be in [" + min + ", " + max + "]");
        }
        return x;
    }

    private static int intIn(Map<String, String> v, String name, int min, int max) {
        return (int) longIn(v, name, min, max);
    }

    private static double doubleIn(Map<String, String> v, String name, double min, double max) {
        String s = v.get(name);
        double x;
        try {
            x = Double.parseDouble(s.trim());
        } catch (NumberFormatException e) {
            throw new InvalidConfigException(name, s, "not a number");
        }
        if (!(x >= min && x <= max)) {
            throw new InvalidConfigException(name, s, "must be in [" + min + ", " + max + "]");
        }
        return x;
    }

    private static boolean bool(Map<String, String> v, String name) {
        String s = v.get(name).trim().toLowerCase(Locale.ROOT);
        if (s.equals("true")) {
            return true;
        }
        if (s.equals("false")) {
            return false;
        }
        throw new InvalidConfigException(name, s, "must be true or false");
    }
}
