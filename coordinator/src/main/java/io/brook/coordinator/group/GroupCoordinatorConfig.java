package io.brook.coordinator.group;

/**
 * Settings of the group coordinator, named after the Kafka broker configs they mirror so that what
 * operators know about Kafka carries over. Immutable; build with {@link #defaults()} and the
 * {@code with*} copies.
 *
 * @param initialRebalanceDelayMs  {@code group.initial.rebalance.delay.ms}: how long the first
 *                                 rebalance of an Empty group waits for more members (re-extended
 *                                 while members keep arriving, capped by the rebalance timeout)
 * @param minSessionTimeoutMs      {@code group.min.session.timeout.ms}
 * @param maxSessionTimeoutMs      {@code group.max.session.timeout.ms}
 * @param maxGroupSize             {@code group.max.size}
 * @param newMemberJoinTimeoutMs   how long a member that joined for the first time may stay parked in
 *                                 JoinGroup before it is dropped (Kafka's fixed 5 minutes)
 * @param offsetMetadataMaxSize    {@code offset.metadata.max.bytes}, counted in characters as Kafka does
 * @param offsetsRetentionMs       {@code offsets.retention.minutes} in milliseconds
 * @param offsetsRetentionCheckIntervalMs {@code offsets.retention.check.interval.ms}
 * @param offsetsTopicPartitions   {@code offsets.topic.num.partitions}: partitions of
 *                                 {@code __consumer_offsets}; a group lives in
 *                                 {@code abs(groupId.hashCode()) % offsetsTopicPartitions}
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
        int offsetsTopicPartitions) {

    /** Name of the internal compacted topic that holds committed offsets and group metadata. */
    public static final String OFFSETS_TOPIC = "__consumer_offsets";

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
    }

    /** Kafka's defaults, with 50 partitions for {@code __consumer_offsets} as Kafka has. */
    public static GroupCoordinatorConfig defaults() {
        return new GroupCoordinatorConfig(3_000, 6_000, 1_800_000, Integer.MAX_VALUE, 5 * 60_000,
                4096, 10_080L * 60_000, 600_000, 50);
    }

    public GroupCoordinatorConfig withInitialRebalanceDelayMs(int v) {
        return new GroupCoordinatorConfig(v, minSessionTimeoutMs, maxSessionTimeoutMs, maxGroupSize, newMemberJoinTimeoutMs,
                offsetMetadataMaxSize, offsetsRetentionMs, offsetsRetentionCheckIntervalMs, offsetsTopicPartitions);
    }

    public GroupCoordinatorConfig withSessionTimeoutBounds(int min, int max) {
        return new GroupCoordinatorConfig(initialRebalanceDelayMs, min, max, maxGroupSize, newMemberJoinTimeoutMs,
                offsetMetadataMaxSize, offsetsRetentionMs, offsetsRetentionCheckIntervalMs, offsetsTopicPartitions);
    }

    public GroupCoordinatorConfig withMaxGroupSize(int v) {
        return new GroupCoordinatorConfig(initialRebalanceDelayMs, minSessionTimeoutMs, maxSessionTimeoutMs, v, newMemberJoinTimeoutMs,
                offsetMetadataMaxSize, offsetsRetentionMs, offsetsRetentionCheckIntervalMs, offsetsTopicPartitions);
    }

    public GroupCoordinatorConfig withNewMemberJoinTimeoutMs(int v) {
        return new GroupCoordinatorConfig(initialRebalanceDelayMs, minSessionTimeoutMs, maxSessionTimeoutMs, maxGroupSize, v,
                offsetMetadataMaxSize, offsetsRetentionMs, offsetsRetentionCheckIntervalMs, offsetsTopicPartitions);
    }

    public GroupCoordinatorConfig withOffsetsRetention(long retentionMs, long checkIntervalMs) {
        return new GroupCoordinatorConfig(initialRebalanceDelayMs, minSessionTimeoutMs, maxSessionTimeoutMs, maxGroupSize,
                newMemberJoinTimeoutMs, offsetMetadataMaxSize, retentionMs, checkIntervalMs, offsetsTopicPartitions);
    }

    public GroupCoordinatorConfig withOffsetMetadataMaxSize(int v) {
        return new GroupCoordinatorConfig(initialRebalanceDelayMs, minSessionTimeoutMs, maxSessionTimeoutMs, maxGroupSize,
                newMemberJoinTimeoutMs, v, offsetsRetentionMs, offsetsRetentionCheckIntervalMs, offsetsTopicPartitions);
    }

    /** Kafka's broker config names this class reads in {@link #fromConfigs}. */
    public static final java.util.List<String> CONFIG_NAMES = java.util.List.of(
            "group.initial.rebalance.delay.ms", "group.min.session.timeout.ms", "group.max.session.timeout.ms",
            "group.max.size", "offset.metadata.max.bytes", "offsets.retention.minutes",
            "offsets.retention.check.interval.ms", "offsets.topic.num.partitions");

    /**
     * From broker settings under Kafka's names ({@link #CONFIG_NAMES}); absent names keep Kafka's
     * defaults, other names are ignored.
     *
     * @throws IllegalArgumentException for a value that is not a number or out of range
     */
    public static GroupCoordinatorConfig fromConfigs(java.util.Map<String, String> configs) {
        GroupCoordinatorConfig d = defaults();
        return new GroupCoordinatorConfig(
                intValue(configs, "group.initial.rebalance.delay.ms", d.initialRebalanceDelayMs),
                intValue(configs, "group.min.session.timeout.ms", d.minSessionTimeoutMs),
                intValue(configs, "group.max.session.timeout.ms", d.maxSessionTimeoutMs),
                intValue(configs, "group.max.size", d.maxGroupSize),
                d.newMemberJoinTimeoutMs,
                intValue(configs, "offset.metadata.max.bytes", d.offsetMetadataMaxSize),
                Math.multiplyExact(longValue(configs, "offsets.retention.minutes", d.offsetsRetentionMs / 60_000), 60_000L),
                longValue(configs, "offsets.retention.check.interval.ms", d.offsetsRetentionCheckIntervalMs),
                intValue(configs, "offsets.topic.num.partitions", d.offsetsTopicPartitions));
    }

    private static int intValue(java.util.Map<String, String> configs, String name, int dflt) {
        long v = longValue(configs, name, dflt);
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) throw new IllegalArgumentException(name + " out of range: " + v);
        return (int) v;
    }

    private static long longValue(java.util.Map<String, String> configs, String name, long dflt) {
        String s = configs.get(name);
        if (s == null) return dflt;
        try {
            return Long.parseLong(s.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " is not a number: '" + s + "'");
        }
    }

    public GroupCoordinatorConfig withOffsetsTopicPartitions(int v) {
        return new GroupCoordinatorConfig(initialRebalanceDelayMs, minSessionTimeoutMs, maxSessionTimeoutMs, maxGroupSize,
                newMemberJoinTimeoutMs, offsetMetadataMaxSize, offsetsRetentionMs, offsetsRetentionCheckIntervalMs, v);
    }

    /** The {@code __consumer_offsets} partition that holds this group's records. */
    public int partitionFor(String groupId) {
        int h = groupId.hashCode();
        // Math.abs(Integer.MIN_VALUE) is negative; mask as Kafka's Utils.abs does.
        return (h == Integer.MIN_VALUE ? 0 : Math.abs(h)) % offsetsTopicPartitions;
    }
}
