package io.brook.storage;

import io.brook.storage.config.ConfigKey;
import io.brook.storage.config.ConfigKey.Check;
import io.brook.storage.config.ConfigKey.Type;
import io.brook.storage.config.InvalidConfigException;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A topic's storage settings, with Kafka's names and defaults. Immutable; build with
 * {@link #defaults()} and {@link #with(Map)}. Values arrive as strings (from CreateTopics,
 * AlterConfigs, a properties file) or as numbers; every value is parsed and checked by its
 * {@link ConfigKey}, and a bad one is rejected with {@link InvalidConfigException} naming the
 * setting.
 *
 * <p>Settings Brook stores but does not act on (replication, throttling, compression re-encoding)
 * are accepted with their Kafka defaults so that tools that read or write them keep working.
 * Among them {@code compression.type} and its levels ({@code compression.gzip.level},
 * {@code .lz4.level}, {@code .zstd.level}, KIP-390): Brook stores a producer's batches as they
 * arrive and never re-compresses one for a topic's codec; the only batches it writes anew are the
 * compactor's, which keep their codec at that codec's default level, as Kafka's cleaner does.
 * Tiered storage, which Brook does not have: {@code remote.storage.enable} may only be false
 * ({@link #checkRequested}); {@code local.retention.*}, {@code remote.copy.lag.*},
 * {@code remote.log.copy.disable} and {@code remote.log.delete.on.disable} are only stored. So is
 * {@code errors.deadletterqueue.group.enable} (share groups' dead-letter queues).
 * {@code max.decompressed.message.bytes} is enforced where Kafka enforces it on what clients send:
 * a produced compressed batch with a larger record is refused (INVALID_RECORD); unlike Kafka, the
 * compactor and timestamp lookups do not hold stored records to it.
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
    /** Kafka's replication throttle: the replicas whose leader side is throttled ({@code partition:broker,...} or {@code *}). */
    public static final String LEADER_REPLICATION_THROTTLED_REPLICAS = "leader.replication.throttled.replicas";
    /** Kafka's replication throttle: the replicas whose follower side is throttled. */
    public static final String FOLLOWER_REPLICATION_THROTTLED_REPLICAS = "follower.replication.throttled.replicas";
    public static final String MESSAGE_TIMESTAMP_BEFORE_MAX_MS = "message.timestamp.before.max.ms";
    public static final String MESSAGE_TIMESTAMP_AFTER_MAX_MS = "message.timestamp.after.max.ms";
    /**
     * Brook's own setting: when true (the default) a write counts as durable, and becomes visible
     * below the high watermark, only once it is fsynced; when false the page cache is trusted as
     * Kafka does by default and the high watermark is the log end.
     */
    public static final String FLUSH_ON_ACK = "brook.flush.on.ack";
    /** KIP-390: the level a broker that re-compresses would use per codec; see the class comment. */
    public static final String COMPRESSION_GZIP_LEVEL = "compression.gzip.level";
    public static final String COMPRESSION_LZ4_LEVEL = "compression.lz4.level";
    public static final String COMPRESSION_ZSTD_LEVEL = "compression.zstd.level";
    /** The largest size one record of a produced compressed batch may have once decompressed. */
    public static final String MAX_DECOMPRESSED_MESSAGE_BYTES = "max.decompressed.message.bytes";
    /** Kafka's share-group dead-letter queue flag; stored, no share groups read it in Brook. */
    public static final String ERRORS_DEADLETTERQUEUE_GROUP_ENABLE = "errors.deadletterqueue.group.enable";
    /** Tiered storage (KIP-405 and later): only {@code false} is accepted, see {@link #checkRequested}. */
    public static final String REMOTE_STORAGE_ENABLE = "remote.storage.enable";
    public static final String LOCAL_RETENTION_MS = "local.retention.ms";
    public static final String LOCAL_RETENTION_BYTES = "local.retention.bytes";
    public static final String REMOTE_LOG_COPY_DISABLE = "remote.log.copy.disable";
    public static final String REMOTE_LOG_DELETE_ON_DISABLE = "remote.log.delete.on.disable";
    public static final String REMOTE_COPY_LAG_MS = "remote.copy.lag.ms";
    public static final String REMOTE_COPY_LAG_BYTES = "remote.copy.lag.bytes";

    /**
     * What a request to turn {@code remote.storage.enable} on gets (INVALID_CONFIG), word for word
     * what Kafka answers when its broker runs without tiered storage
     * ({@code remote.log.storage.system.enable=false}, its default). Brook has no tiered storage.
     */
    public static final String TIERED_STORAGE_DISABLED = "Tiered Storage functionality is disabled in the broker."
            + " Topic cannot be configured with remote log storage.";

    /** The default and largest {@code max.decompressed.message.bytes}: the largest array a JVM allocates. */
    public static final int MAX_DECOMPRESSED_LIMIT = Integer.MAX_VALUE - 8;

    private static final String LONG_MAX = Long.toString(Long.MAX_VALUE);

    /**
     * {@code message.timestamp.after.max.ms} defaults to one hour, as in Kafka since 4.0
     * (KIP-1030): a record stamped further in the future is refused (INVALID_TIMESTAMP). Such a
     * timestamp would hold its segment back from time-based retention and make the next batch
     * roll a segment of its own.
     */
    public static final String DEFAULT_TIMESTAMP_AFTER_MAX_MS = "3600000";

    /**
     * Kafka's lower bound for {@code segment.bytes} and {@code log.segment.bytes} since 4.0
     * (KIP-1030), enforced by {@link #checkRequested} on what clients and operators ask for. Every
     * segment holds open files, so a tiny segment size would let one client exhaust the broker's
     * file descriptors.
     */
    public static final int MIN_REQUESTED_SEGMENT_BYTES = 1024 * 1024;

    /** Every setting, in a stable order: type, default and the rule a value must satisfy. */
    private static final Map<String, ConfigKey> KEYS = keys(
            ConfigKey.of(SEGMENT_BYTES, Type.INT, "1073741824", Check.atLeast(14),
                    "Size at which the active segment file is closed and a new one started."),
            ConfigKey.of(SEGMENT_MS, Type.LONG, "604800000", Check.atLeast(1),
                    "Age at which the active segment is rolled even if not full, so retention can remove it."),
            ConfigKey.of(SEGMENT_JITTER_MS, Type.LONG, "0", Check.atLeast(0),
                    "Up to this much is taken off segment.ms at random, so partitions do not roll together."),
            ConfigKey.of(SEGMENT_INDEX_BYTES, Type.INT, "10485760", Check.atLeast(TimeIndex.ENTRY_SIZE),
                    "Size of a segment's offset and time indexes; a full index rolls the segment."),
            ConfigKey.of(INDEX_INTERVAL_BYTES, Type.INT, "4096", Check.atLeast(0),
                    "Bytes of records between two offset index entries."),
            ConfigKey.of(RETENTION_MS, Type.LONG, "604800000", Check.atLeast(-1),
                    "Segments whose newest record is older than this are deleted (delete policy); -1 keeps them."),
            ConfigKey.of(RETENTION_BYTES, Type.LONG, "-1", Check.NONE,
                    "Oldest segments are deleted while a partition holds more than this (delete policy); -1: no limit."),
            ConfigKey.of(CLEANUP_POLICY, Type.LIST, "delete", LogConfig::cleanupPolicyProblem,
                    "delete (retention by time and size), compact (the latest record per key) or both."),
            ConfigKey.of(MIN_COMPACTION_LAG_MS, Type.LONG, "0", Check.atLeast(0),
                    "A record stays uncompacted for at least this long after it is written."),
            ConfigKey.of(MAX_COMPACTION_LAG_MS, Type.LONG, LONG_MAX, Check.atLeast(1),
                    "A record is eligible for compaction at the latest this long after it is written."),
            ConfigKey.of(DELETE_RETENTION_MS, Type.LONG, "86400000", Check.atLeast(0),
                    "How long a compacted topic keeps a tombstone (a null value) for consumers to see."),
            ConfigKey.of(MIN_CLEANABLE_DIRTY_RATIO, Type.DOUBLE, "0.5", Check.betweenDouble(0.0, 1.0),
                    "Share of not yet compacted bytes at which a log is compacted."),
            ConfigKey.of(MAX_MESSAGE_BYTES, Type.INT, "1048588", Check.atLeast(0),
                    "Largest record batch accepted, after compression."),
            ConfigKey.of(MAX_DECOMPRESSED_MESSAGE_BYTES, Type.INT, Integer.toString(MAX_DECOMPRESSED_LIMIT),
                    Check.between(1, MAX_DECOMPRESSED_LIMIT),
                    "Largest size a compressed record of a produced batch may have once decompressed."),
            ConfigKey.of(MESSAGE_TIMESTAMP_TYPE, Type.STRING, "CreateTime", Check.oneOf("CreateTime", "LogAppendTime"),
                    "CreateTime keeps the producer's timestamps; LogAppendTime replaces them with the broker's clock."),
            ConfigKey.of(FLUSH_MS, Type.LONG, LONG_MAX, Check.atLeast(0),
                    "Longest written data may stay unforced to disk; writes answered only after a force (brook.flush.on.ack) are already."),
            ConfigKey.of(FLUSH_MESSAGES, Type.LONG, LONG_MAX, Check.atLeast(1),
                    "Most records written before the log is forced; writes answered only after a force (brook.flush.on.ack) are already."),
            ConfigKey.of(FILE_DELETE_DELAY_MS, Type.LONG, "60000", Check.atLeast(0),
                    "How long a deleted segment's files stay on disk before they are removed."),
            ConfigKey.of(COMPRESSION_TYPE, Type.STRING, "producer",
                    Check.oneOf("producer", "uncompressed", "gzip", "snappy", "lz4", "zstd"),
                    "Compression of stored batches; Brook stores batches as the producer sent them (producer)."),
            ConfigKey.of(COMPRESSION_GZIP_LEVEL, Type.INT, "-1",
                    v -> (((Number) v).intValue() == -1 || Check.between(1, 9).problem(v) == null) ? null
                            : "must be between 1 and 9 or equal to -1",
                    "Gzip level for re-compressed batches; stored and described, Brook never re-compresses."),
            ConfigKey.of(COMPRESSION_LZ4_LEVEL, Type.INT, "9", Check.between(1, 17),
                    "LZ4 level for re-compressed batches; stored and described, Brook never re-compresses."),
            ConfigKey.of(COMPRESSION_ZSTD_LEVEL, Type.INT, "3", Check.between(-131072, 22),
                    "Zstandard level for re-compressed batches; stored and described, Brook never re-compresses."),
            ConfigKey.of(MIN_INSYNC_REPLICAS, Type.INT, "1", Check.atLeast(1),
                    "Kafka: replicas that must hold an acks=all write before it is answered; stored (docs/cluster.md says what Brook waits for)."),
            ConfigKey.of(UNCLEAN_LEADER_ELECTION_ENABLE, Type.BOOLEAN, "false", Check.NONE,
                    "Kafka: whether a replica out of sync may become leader on its own; stored (Brook elects uncleanly only when asked)."),
            ConfigKey.of(PREALLOCATE, Type.BOOLEAN, "false", Check.NONE,
                    "Kafka: create segment files at their full size; stored (Brook preallocates by brook.log.preallocate.bytes)."),
            ConfigKey.of(LEADER_REPLICATION_THROTTLED_REPLICAS, Type.LIST, "",
                    v -> throttledReplicasProblem(LEADER_REPLICATION_THROTTLED_REPLICAS, v),
                    "Replicas (partition:broker,...) whose leader-side replication is throttled, or *."),
            ConfigKey.of(FOLLOWER_REPLICATION_THROTTLED_REPLICAS, Type.LIST, "",
                    v -> throttledReplicasProblem(FOLLOWER_REPLICATION_THROTTLED_REPLICAS, v),
                    "Replicas (partition:broker,...) whose follower-side replication is throttled, or *."),
            ConfigKey.of(MESSAGE_TIMESTAMP_BEFORE_MAX_MS, Type.LONG, LONG_MAX, Check.atLeast(0),
                    "CreateTime: a batch whose timestamp is further than this in the past is refused."),
            ConfigKey.of(MESSAGE_TIMESTAMP_AFTER_MAX_MS, Type.LONG, DEFAULT_TIMESTAMP_AFTER_MAX_MS, Check.atLeast(0),
                    "CreateTime: a batch whose timestamp is further than this in the future is refused."),
            ConfigKey.of(REMOTE_STORAGE_ENABLE, Type.BOOLEAN, "false", Check.NONE,
                    "Tiered storage; Brook has none, so true is refused."),
            ConfigKey.of(LOCAL_RETENTION_MS, Type.LONG, "-2", Check.atLeast(-2),
                    "Tiered storage: local retention by time (-2: retention.ms); stored only."),
            ConfigKey.of(LOCAL_RETENTION_BYTES, Type.LONG, "-2", Check.atLeast(-2),
                    "Tiered storage: local retention by size (-2: retention.bytes); stored only."),
            ConfigKey.of(REMOTE_LOG_COPY_DISABLE, Type.BOOLEAN, "false", Check.NONE,
                    "Tiered storage: stop copying segments to remote storage; stored only."),
            ConfigKey.of(REMOTE_COPY_LAG_MS, Type.LONG, "0", Check.atLeast(-1),
                    "Tiered storage: how long a segment may wait to be copied; stored only."),
            ConfigKey.of(REMOTE_COPY_LAG_BYTES, Type.LONG, "-1", Check.atLeast(-1),
                    "Tiered storage: how many bytes may wait to be copied; stored only."),
            ConfigKey.of(REMOTE_LOG_DELETE_ON_DISABLE, Type.BOOLEAN, "false", Check.NONE,
                    "Tiered storage: delete remote data when tiering is turned off; stored only."),
            ConfigKey.of(ERRORS_DEADLETTERQUEUE_GROUP_ENABLE, Type.BOOLEAN, "false", Check.NONE,
                    "Share groups' dead-letter queues; stored only (Brook serves no share groups)."),
            ConfigKey.of(FLUSH_ON_ACK, Type.BOOLEAN, "true", Check.NONE,
                    "Brook: answer acks=all writes only once they are forced to disk."));

    private static final Map<String, String> DEFAULTS;

    static {
        Map<String, String> d = new LinkedHashMap<>();
        for (ConfigKey k : KEYS.values()) {
            d.put(k.name(), k.defaultValue());
        }
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
    private final int gzipLevel;
    private final int lz4Level;
    private final int zstdLevel;
    private final int maxDecompressedMessageBytes;

    private LogConfig(Map<String, String> overrides) {
        this.overrides = Collections.unmodifiableMap(new LinkedHashMap<>(overrides));
        Map<String, String> v = new LinkedHashMap<>(DEFAULTS);
        v.putAll(overrides);
        this.values = Collections.unmodifiableMap(v);
        segmentBytes = parseInt(v, SEGMENT_BYTES);
        segmentMs = parseLong(v, SEGMENT_MS);
        segmentJitterMs = parseLong(v, SEGMENT_JITTER_MS);
        segmentIndexBytes = parseInt(v, SEGMENT_INDEX_BYTES);
        indexIntervalBytes = parseInt(v, INDEX_INTERVAL_BYTES);
        retentionMs = parseLong(v, RETENTION_MS);
        retentionBytes = parseLong(v, RETENTION_BYTES);
        List<?> policies = (List<?>) KEYS.get(CLEANUP_POLICY).parse(v.get(CLEANUP_POLICY));
        compact = hasPolicy(policies, "compact");
        delete = hasPolicy(policies, "delete");
        minCompactionLagMs = parseLong(v, MIN_COMPACTION_LAG_MS);
        maxCompactionLagMs = parseLong(v, MAX_COMPACTION_LAG_MS);
        deleteRetentionMs = parseLong(v, DELETE_RETENTION_MS);
        minCleanableDirtyRatio = KEYS.get(MIN_CLEANABLE_DIRTY_RATIO).parseDouble(v.get(MIN_CLEANABLE_DIRTY_RATIO));
        maxMessageBytes = parseInt(v, MAX_MESSAGE_BYTES);
        logAppendTime = KEYS.get(MESSAGE_TIMESTAMP_TYPE).parse(v.get(MESSAGE_TIMESTAMP_TYPE)).equals("LogAppendTime");
        flushMs = parseLong(v, FLUSH_MS);
        flushMessages = parseLong(v, FLUSH_MESSAGES);
        fileDeleteDelayMs = parseLong(v, FILE_DELETE_DELAY_MS);
        KEYS.get(COMPRESSION_TYPE).parse(v.get(COMPRESSION_TYPE));
        parseInt(v, MIN_INSYNC_REPLICAS);
        parseBoolean(v, UNCLEAN_LEADER_ELECTION_ENABLE);
        parseBoolean(v, PREALLOCATE);
        KEYS.get(LEADER_REPLICATION_THROTTLED_REPLICAS).parse(v.get(LEADER_REPLICATION_THROTTLED_REPLICAS));
        KEYS.get(FOLLOWER_REPLICATION_THROTTLED_REPLICAS).parse(v.get(FOLLOWER_REPLICATION_THROTTLED_REPLICAS));
        timestampBeforeMaxMs = parseLong(v, MESSAGE_TIMESTAMP_BEFORE_MAX_MS);
        timestampAfterMaxMs = parseLong(v, MESSAGE_TIMESTAMP_AFTER_MAX_MS);
        flushOnAck = parseBoolean(v, FLUSH_ON_ACK);
        gzipLevel = parseInt(v, COMPRESSION_GZIP_LEVEL);
        lz4Level = parseInt(v, COMPRESSION_LZ4_LEVEL);
        zstdLevel = parseInt(v, COMPRESSION_ZSTD_LEVEL);
        maxDecompressedMessageBytes = parseInt(v, MAX_DECOMPRESSED_MESSAGE_BYTES);
        parseBoolean(v, ERRORS_DEADLETTERQUEUE_GROUP_ENABLE);
        parseBoolean(v, REMOTE_STORAGE_ENABLE);
        parseLong(v, LOCAL_RETENTION_MS);
        parseLong(v, LOCAL_RETENTION_BYTES);
        parseBoolean(v, REMOTE_LOG_COPY_DISABLE);
        parseBoolean(v, REMOTE_LOG_DELETE_ON_DISABLE);
        parseLong(v, REMOTE_COPY_LAG_MS);
        parseLong(v, REMOTE_COPY_LAG_BYTES);
    }

    private static Map<String, ConfigKey> keys(ConfigKey... keys) {
        Map<String, ConfigKey> m = new LinkedHashMap<>();
        for (ConfigKey k : keys) {
            m.put(k.name(), k);
        }
        return Collections.unmodifiableMap(m);
    }

    private static long parseLong(Map<String, String> v, String name) {
        return KEYS.get(name).parseLong(v.get(name));
    }

    private static int parseInt(Map<String, String> v, String name) {
        return KEYS.get(name).parseInt(v.get(name));
    }

    private static boolean parseBoolean(Map<String, String> v, String name) {
        return KEYS.get(name).parseBoolean(v.get(name));
    }

    /**
     * {@code *.replication.throttled.replicas}: the literal {@code *} (every replica) or a list of
     * {@code partition:broker} pairs, Kafka's rule and message. Only the replica fetcher reads them.
     */
    private static String throttledReplicasProblem(String name, Object value) {
        List<?> items = (List<?>) value;
        if (items.size() == 1 && items.get(0).toString().trim().equals("*")) {
            return null;
        }
        for (Object item : items) {
            if (!item.toString().trim().matches("([0-9]+:[0-9]+)?")) {
                return name + " must be the literal '*' or a list of replicas in the following format:"
                        + " [partitionId]:[brokerId],[partitionId]:[brokerId],...";
            }
        }
        return null;
    }

    /** {@code cleanup.policy}: a list of {@code delete} and {@code compact} (either case), possibly empty. */
    private static String cleanupPolicyProblem(Object value) {
        for (Object p : (List<?>) value) {
            String policy = p.toString().toLowerCase(Locale.ROOT);
            if (!policy.equals("compact") && !policy.equals("delete")) {
                return "must be a list of 'delete' and 'compact'";
            }
        }
        return null;
    }

    private static boolean hasPolicy(List<?> policies, String policy) {
        for (Object p : policies) {
            if (p.toString().equalsIgnoreCase(policy)) {
                return true;
            }
        }
        return false;
    }

    /** Kafka's defaults (plus Brook's fsync-on-ack). */
    public static LogConfig defaults() {
        return DEFAULT;
    }

    /** The names this class knows, in a stable order. */
    public static Set<String> names() {
        return DEFAULTS.keySet();
    }

    /** The definition (type, default, range) of a setting, or null for an unknown name. */
    public static ConfigKey key(String name) {
        return KEYS.get(name);
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

    /**
     * Checks settings that a client (CreateTopics, AlterConfigs, IncrementalAlterConfigs) or an
     * operator asks for against Kafka's bounds where they are stricter than what the storage code
     * needs, and what {@link #with} therefore accepts: {@code segment.bytes} at least
     * {@link #MIN_REQUESTED_SEGMENT_BYTES}. {@code with} stays lenient so that a topic whose
     * override was stored before the bound was raised still opens, and so that storage tests can
     * roll segments of a few hundred bytes; neither path is open to a client.
     *
     * <p>And {@code remote.storage.enable=true} is refused with {@link #TIERED_STORAGE_DISABLED},
     * as Kafka refuses it on a broker without tiered storage; Brook has none. The other tiered
     * storage settings are accepted with any value in their range, and, as in Kafka when tiered
     * storage is off, {@code local.retention.*} is not compared with {@code retention.*}.
     *
     * @throws InvalidConfigException naming the first setting out of bounds
     */
    public static void checkRequested(Map<String, ?> values) {
        Object segmentBytes = values.get(SEGMENT_BYTES);
        if (segmentBytes != null) {
            int v = KEYS.get(SEGMENT_BYTES).parseInt(String.valueOf(segmentBytes));
            if (v < MIN_REQUESTED_SEGMENT_BYTES) {
                throw new InvalidConfigException(SEGMENT_BYTES, String.valueOf(segmentBytes),
                        "must be at least " + MIN_REQUESTED_SEGMENT_BYTES);
            }
        }
        Object remote = values.get(REMOTE_STORAGE_ENABLE);
        if (remote != null && KEYS.get(REMOTE_STORAGE_ENABLE).parseBoolean(String.valueOf(remote))) {
            throw InvalidConfigException.withMessage(REMOTE_STORAGE_ENABLE, TIERED_STORAGE_DISABLED);
        }
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
    public int gzipLevel() { return gzipLevel; }
    public int lz4Level() { return lz4Level; }
    public int zstdLevel() { return zstdLevel; }
    public int maxDecompressedMessageBytes() { return maxDecompressedMessageBytes; }

    /**
     * How old the active segment may grow before an append rolls it: {@code segment.ms}, and on
     * compacted topics at most {@code max.compaction.lag.ms} too, so that no record waits in the
     * active segment (which is never cleaned) longer than that (KIP-354).
     */
    long maxSegmentMs() {
        return compact ? Math.min(segmentMs, maxCompactionLagMs) : segmentMs;
    }

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
}
