package io.brook.coordinator.group;

import java.util.List;
import java.util.Map;

import io.brook.storage.config.ConfigKey;
import io.brook.storage.config.ConfigKey.Check;
import io.brook.storage.config.ConfigKey.Type;

/**
 * Settings of the group coordinator, named after the Kafka broker configs they mirror so that what
 * operators know about Kafka carries over. Immutable; read with {@link #fromConfigs}, changed with
 * the {@code with*} copies.
 *
 * @param initialRebalanceDelayMs  {@code group.initial.rebalance.delay.ms}: how long the first
 *                                 rebalance of an Empty group waits for more members (re-extended
 *                                 while members keep arriving, capped by the rebalance timeout)
 * @param minSessionTimeoutMs      {@code group.min.session.timeout.ms}
 * @param maxSessionTimeoutMs      {@code group.max.session.timeout.ms}
 * @param maxGroupSize             {@code group.max.size}: members per group, and member ids handed out
 *                                 with MEMBER_ID_REQUIRED that are not used yet (Kafka: unbounded by
 *                                 default; Brook: {@value #DEFAULT_MAX_GROUP_SIZE})
 * @param newMemberJoinTimeoutMs   how long a member that joined for the first time may stay parked in
 *                                 JoinGroup before it is dropped (Kafka's fixed 5 minutes)
 * @param offsetMetadataMaxSize    {@code offset.metadata.max.bytes}, counted in characters as Kafka does
 * @param offsetsRetentionMs       {@code offsets.retention.minutes} in milliseconds
 * @param offsetsRetentionCheckIntervalMs {@code offsets.retention.check.interval.ms}
 * @param offsetsTopicPartitions   {@code offsets.topic.num.partitions}: partitions of
 *                                 {@code __consumer_offsets}; a group lives in
 *                                 {@code abs(groupId.hashCode()) % offsetsTopicPartitions}
 * @param maxGroups                {@code brook.group.max.groups}: groups this coordinator
 *                                 holds (Brook's own bound; Kafka has none for classic groups)
 * @param consumerGroups           the settings of KIP-848 consumer groups ({@code group.consumer.*})
 */
public record GroupCoordinatorConfig(
        int initialRebalanceDelayMs,
        int minSessionTimeoutMs,
        int maxSessionTimeoutMs,
        int maxGroupSize,
        int newMemberJoinTimeoutMs,
        int offsetMetadataMaxSize,
        long offsetsRetentionMs,
        long offsetsRetentionCheckIntervalMs,
        int offsetsTopicPartitions,
        int maxGroups,
        ConsumerGroupConfig consumerGroups) {

    /** Name of the internal compacted topic that holds committed offsets and group metadata. */
    static final String OFFSETS_TOPIC = "__consumer_offsets";

    private static final int NEW_MEMBER_JOIN_TIMEOUT_MS = 5 * 60_000;
    private static final long MINUTE_MS = 60_000L;

    /**
     * Brook's default of {@code group.max.size} (Kafka's is unbounded): far above any real classic
     * group (each rebalance hands every member's metadata to the leader in one response, and the
     * group's record holds all of them), low enough that one group's members stay a bounded amount
     * of memory.
     */
    static final int DEFAULT_MAX_GROUP_SIZE = 10_000;
    /**
     * Default of {@code brook.group.max.groups}: Kafka does not bound its classic groups; Brook does
     * so that group ids a client invents cannot grow the coordinator's memory without end. A
     * hundred thousand groups is far above what one broker serves (groups without members or
     * offsets are dropped at each offsets retention check).
     */
    static final int DEFAULT_MAX_GROUPS = 100_000;

    // Kafka's names and defaults (50 partitions for __consumer_offsets, as Kafka has).
    private static final ConfigKey INITIAL_REBALANCE_DELAY_MS =
            ConfigKey.of("group.initial.rebalance.delay.ms", Type.INT, "3000", Check.atLeast(0));
    private static final ConfigKey MIN_SESSION_TIMEOUT_MS =
            ConfigKey.of("group.min.session.timeout.ms", Type.INT, "6000", Check.atLeast(0));
    private static final ConfigKey MAX_SESSION_TIMEOUT_MS =
            ConfigKey.of("group.max.session.timeout.ms", Type.INT, "1800000", Check.atLeast(0));
    private static final ConfigKey MAX_SIZE =
            ConfigKey.of("group.max.size", Type.INT, Integer.toString(DEFAULT_MAX_GROUP_SIZE), Check.atLeast(1));
    private static final ConfigKey MAX_GROUPS =
            ConfigKey.of("brook.group.max.groups", Type.INT, Integer.toString(DEFAULT_MAX_GROUPS), Check.atLeast(1));
    private static final ConfigKey OFFSET_METADATA_MAX_BYTES =
            ConfigKey.of("offset.metadata.max.bytes", Type.INT, "4096", Check.atLeast(0));
    private static final ConfigKey OFFSETS_RETENTION_MINUTES =
            ConfigKey.of("offsets.retention.minutes", Type.LONG, "10080", Check.between(1, Long.MAX_VALUE / MINUTE_MS));
    private static final ConfigKey OFFSETS_RETENTION_CHECK_INTERVAL_MS =
            ConfigKey.of("offsets.retention.check.interval.ms", Type.LONG, "600000", Check.atLeast(1));
    private static final ConfigKey OFFSETS_TOPIC_NUM_PARTITIONS =
            ConfigKey.of("offsets.topic.num.partitions", Type.INT, "50", Check.atLeast(1));

    private static final List<ConfigKey> KEYS = List.of(INITIAL_REBALANCE_DELAY_MS, MIN_SESSION_TIMEOUT_MS,
            MAX_SESSION_TIMEOUT_MS, MAX_SIZE, OFFSET_METADATA_MAX_BYTES, OFFSETS_RETENTION_MINUTES,
            OFFSETS_RETENTION_CHECK_INTERVAL_MS, OFFSETS_TOPIC_NUM_PARTITIONS, MAX_GROUPS);

    /** Kafka's broker config names this class reads in {@link #fromConfigs}. */
    public static final List<String> CONFIG_NAMES = java.util.stream.Stream.concat(KEYS.stream().map(ConfigKey::name),
            ConsumerGroupConfig.CONFIG_NAMES.stream()).toList();

    public GroupCoordinatorConfig {
        if (initialRebalanceDelayMs < 0) throw new IllegalArgumentException("initialRebalanceDelayMs < 0");
        if (minSessionTimeoutMs < 0 || maxSessionTimeoutMs < minSessionTimeoutMs) {
            throw new IllegalArgumentException("session timeout bounds [" + minSessionTimeoutMs + ", " + maxSessionTimeoutMs + "]");
        }
        if (maxGroupSize < 1) throw new IllegalArgumentException("maxGroupSize < 1");
        if (newMemberJoinTimeoutMs < 0) throw new IllegalArgumentException("newMemberJoinTimeoutMs < 0");
        if (offsetMetadataMaxSize < 0) throw new IllegalArgumentException("offsetMetadataMaxSize < 0");
        if (offsetsRetentionMs < 1) throw new IllegalArgumentException("offsetsRetentionMs < 1");
        if (offsetsRetentionCheckIntervalMs < 1) throw new IllegalArgumentException("offsetsRetentionCheckIntervalMs < 1");
        if (offsetsTopicPartitions < 1) throw new IllegalArgumentException("offsetsTopicPartitions < 1");
        if (maxGroups < 1) throw new IllegalArgumentException("maxGroups < 1");
        if (consumerGroups == null) throw new IllegalArgumentException("consumerGroups");
    }

    /** Kafka's defaults, and Brook's bounds where Kafka has none. */
    static GroupCoordinatorConfig defaults() {
        return fromConfigs(Map.of());
    }

    /**
     * From broker settings under Kafka's names ({@link #CONFIG_NAMES}); absent names keep Kafka's
     * defaults, other names are ignored.
     *
     * @throws IllegalArgumentException for a value that is not a number or out of range (an
     *         {@link io.brook.storage.config.InvalidConfigException} naming the setting), or for a
     *         maximum session timeout below the minimum
     */
    public static GroupCoordinatorConfig fromConfigs(Map<String, String> configs) {
        return new GroupCoordinatorConfig(
                intValue(configs, INITIAL_REBALANCE_DELAY_MS),
                intValue(configs, MIN_SESSION_TIMEOUT_MS),
                intValue(configs, MAX_SESSION_TIMEOUT_MS),
                intValue(configs, MAX_SIZE),
                NEW_MEMBER_JOIN_TIMEOUT_MS,
                intValue(configs, OFFSET_METADATA_MAX_BYTES),
                Math.multiplyExact(longValue(configs, OFFSETS_RETENTION_MINUTES), MINUTE_MS),
                longValue(configs, OFFSETS_RETENTION_CHECK_INTERVAL_MS),
                intValue(configs, OFFSETS_TOPIC_NUM_PARTITIONS),
                intValue(configs, MAX_GROUPS),
                ConsumerGroupConfig.fromConfigs(configs));
    }

    private static int intValue(Map<String, String> configs, ConfigKey key) {
        return key.parseInt(configs.getOrDefault(key.name(), key.defaultValue()));
    }

    private static long longValue(Map<String, String> configs, ConfigKey key) {
        return key.parseLong(configs.getOrDefault(key.name(), key.defaultValue()));
    }

    /** The same settings with another number of {@code __consumer_offsets} partitions. */
    public GroupCoordinatorConfig withOffsetsTopicPartitions(int v) {
        return new GroupCoordinatorConfig(initialRebalanceDelayMs, minSessionTimeoutMs, maxSessionTimeoutMs, maxGroupSize,
                newMemberJoinTimeoutMs, offsetMetadataMaxSize, offsetsRetentionMs, offsetsRetentionCheckIntervalMs, v, maxGroups, consumerGroups);
    }

    GroupCoordinatorConfig withInitialRebalanceDelayMs(int v) {
        return new GroupCoordinatorConfig(v, minSessionTimeoutMs, maxSessionTimeoutMs, maxGroupSize, newMemberJoinTimeoutMs,
                offsetMetadataMaxSize, offsetsRetentionMs, offsetsRetentionCheckIntervalMs, offsetsTopicPartitions, maxGroups, consumerGroups);
    }

    GroupCoordinatorConfig withMaxGroupSize(int v) {
        return new GroupCoordinatorConfig(initialRebalanceDelayMs, minSessionTimeoutMs, maxSessionTimeoutMs, v, newMemberJoinTimeoutMs,
                offsetMetadataMaxSize, offsetsRetentionMs, offsetsRetentionCheckIntervalMs, offsetsTopicPartitions, maxGroups, consumerGroups);
    }

    GroupCoordinatorConfig withNewMemberJoinTimeoutMs(int v) {
        return new GroupCoordinatorConfig(initialRebalanceDelayMs, minSessionTimeoutMs, maxSessionTimeoutMs, maxGroupSize, v,
                offsetMetadataMaxSize, offsetsRetentionMs, offsetsRetentionCheckIntervalMs, offsetsTopicPartitions, maxGroups, consumerGroups);
    }

    GroupCoordinatorConfig withOffsetsRetention(long retentionMs, long checkIntervalMs) {
        return new GroupCoordinatorConfig(initialRebalanceDelayMs, minSessionTimeoutMs, maxSessionTimeoutMs, maxGroupSize,
                newMemberJoinTimeoutMs, offsetMetadataMaxSize, retentionMs, checkIntervalMs, offsetsTopicPartitions, maxGroups, consumerGroups);
    }

    GroupCoordinatorConfig withMaxGroups(int v) {
        return new GroupCoordinatorConfig(initialRebalanceDelayMs, minSessionTimeoutMs, maxSessionTimeoutMs, maxGroupSize,
                newMemberJoinTimeoutMs, offsetMetadataMaxSize, offsetsRetentionMs, offsetsRetentionCheckIntervalMs,
                offsetsTopicPartitions, v, consumerGroups);
    }

    GroupCoordinatorConfig withConsumerGroups(ConsumerGroupConfig v) {
        return new GroupCoordinatorConfig(initialRebalanceDelayMs, minSessionTimeoutMs, maxSessionTimeoutMs, maxGroupSize,
                newMemberJoinTimeoutMs, offsetMetadataMaxSize, offsetsRetentionMs, offsetsRetentionCheckIntervalMs,
                offsetsTopicPartitions, maxGroups, v);
    }

    /** The {@code __consumer_offsets} partition that holds this group's records. */
    int partitionFor(String groupId) {
        int h = groupId.hashCode();
        // Math.abs(Integer.MIN_VALUE) is negative; mask as Kafka's Utils.abs does.
        return (h == Integer.MIN_VALUE ? 0 : Math.abs(h)) % offsetsTopicPartitions;
    }
}
