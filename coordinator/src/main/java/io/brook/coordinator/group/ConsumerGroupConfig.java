package io.brook.coordinator.group;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.brook.storage.config.ConfigKey;
import io.brook.storage.config.ConfigKey.Check;
import io.brook.storage.config.ConfigKey.Type;
import io.brook.storage.config.InvalidConfigException;

/**
 * Settings of KIP-848 consumer groups, under Kafka's broker config names.
 *
 * @param sessionTimeoutMs    {@code group.consumer.session.timeout.ms}: a member that sends no
 *                            heartbeat for this long is removed
 * @param heartbeatIntervalMs {@code group.consumer.heartbeat.interval.ms}: how often members are
 *                            told to send one (a new assignment reaches a member at its next one);
 *                            this and the session timeout must lie within Kafka's
 *                            {@code group.consumer.min/max.*} bounds, which are read for that only
 * @param maxSize             {@code group.consumer.max.size} (Kafka: unbounded; Brook: the bound of
 *                            classic groups)
 * @param assignors           {@code group.consumer.assignors}: the server-side assignors members
 *                            may name, the first being the default; Kafka's class names of its
 *                            uniform and range assignors are accepted for {@code uniform} and
 *                            {@code range}
 */
public record ConsumerGroupConfig(int sessionTimeoutMs, int heartbeatIntervalMs, int maxSize, List<String> assignors) {

    private static final String KAFKA_ASSIGNOR_PACKAGE = "org.apache.kafka.coordinator.group.assignor.";

    private static final ConfigKey SESSION_TIMEOUT_MS =
            ConfigKey.of("group.consumer.session.timeout.ms", Type.INT, "45000", Check.atLeast(1));
    private static final ConfigKey HEARTBEAT_INTERVAL_MS =
            ConfigKey.of("group.consumer.heartbeat.interval.ms", Type.INT, "5000", Check.atLeast(1));
    private static final ConfigKey MIN_SESSION_TIMEOUT_MS =
            ConfigKey.of("group.consumer.min.session.timeout.ms", Type.INT, "45000", Check.atLeast(1));
    private static final ConfigKey MAX_SESSION_TIMEOUT_MS =
            ConfigKey.of("group.consumer.max.session.timeout.ms", Type.INT, "60000", Check.atLeast(1));
    private static final ConfigKey MIN_HEARTBEAT_INTERVAL_MS =
            ConfigKey.of("group.consumer.min.heartbeat.interval.ms", Type.INT, "5000", Check.atLeast(1));
    private static final ConfigKey MAX_HEARTBEAT_INTERVAL_MS =
            ConfigKey.of("group.consumer.max.heartbeat.interval.ms", Type.INT, "15000", Check.atLeast(1));
    private static final ConfigKey MAX_SIZE = ConfigKey.of("group.consumer.max.size", Type.INT,
            Integer.toString(GroupCoordinatorConfig.DEFAULT_MAX_GROUP_SIZE), Check.atLeast(1));
    private static final ConfigKey ASSIGNORS = ConfigKey.of("group.consumer.assignors", Type.LIST,
            String.join(",", ServerAssignors.NAMES), Check.NONE);

    /** The group-level settings (Kafka's group config names) that replace the two timeouts for one group. */
    public static final String GROUP_SESSION_TIMEOUT_MS = "consumer.session.timeout.ms";
    public static final String GROUP_HEARTBEAT_INTERVAL_MS = "consumer.heartbeat.interval.ms";

    /** The group settings Brook has; Kafka's others are for share and streams groups. */
    public static final List<String> GROUP_SETTINGS = List.of(GROUP_HEARTBEAT_INTERVAL_MS, GROUP_SESSION_TIMEOUT_MS);

    /** Kafka 4.4's other group settings: for its share and streams groups and its assignor threads. */
    private static final List<String> KAFKA_ONLY_GROUP_SETTINGS = List.of("consumer.assignment.interval.ms",
            "consumer.assignor.offload.enable", "share.session.timeout.ms", "share.heartbeat.interval.ms",
            "share.record.lock.duration.ms", "share.delivery.count.limit", "share.partition.max.record.locks",
            "share.auto.offset.reset", "share.isolation.level", "share.renew.acknowledge.enable",
            "share.assignment.interval.ms", "share.assignor.offload.enable", "streams.session.timeout.ms",
            "streams.heartbeat.interval.ms", "streams.num.standby.replicas", "streams.initial.rebalance.delay.ms",
            "streams.assignment.interval.ms", "streams.rack.aware.assignment.tags", "streams.assignor.offload.enable",
            "streams.task.offset.interval.ms", "streams.num.warmup.replicas", "streams.acceptable.recovery.lag",
            "streams.assignor.name", "errors.deadletterqueue.topic.name", "errors.deadletterqueue.copy.record.enable");

    /** Kafka's broker config names this class reads. */
    static final List<String> CONFIG_NAMES = List.of(SESSION_TIMEOUT_MS.name(), HEARTBEAT_INTERVAL_MS.name(),
            MIN_SESSION_TIMEOUT_MS.name(), MAX_SESSION_TIMEOUT_MS.name(), MIN_HEARTBEAT_INTERVAL_MS.name(),
            MAX_HEARTBEAT_INTERVAL_MS.name(), MAX_SIZE.name(), ASSIGNORS.name());

    public ConsumerGroupConfig {
        if (sessionTimeoutMs < 1 || heartbeatIntervalMs < 1 || maxSize < 1) {
            throw new IllegalArgumentException("consumer group timeouts and size must be positive");
        }
        if (assignors.isEmpty()) throw new IllegalArgumentException("no assignor");
        assignors = List.copyOf(assignors);
    }

    static ConsumerGroupConfig fromConfigs(Map<String, String> configs) {
        List<String> names = new ArrayList<>();
        String rawAssignors = configs.getOrDefault(ASSIGNORS.name(), ASSIGNORS.defaultValue());
        @SuppressWarnings("unchecked")
        List<String> listed = (List<String>) ASSIGNORS.parse(rawAssignors);
        for (String a : listed) {
            String name = assignorName(a);
            if (name == null) {
                throw new InvalidConfigException(ASSIGNORS.name(), rawAssignors,
                        "unknown assignor " + a + " (Brook has " + String.join(" and ", ServerAssignors.NAMES) + ")");
            }
            if (!names.contains(name)) names.add(name);
        }
        if (names.isEmpty()) throw new InvalidConfigException(ASSIGNORS.name(), rawAssignors, "names no assignor");
        int session = within(configs, SESSION_TIMEOUT_MS, MIN_SESSION_TIMEOUT_MS, MAX_SESSION_TIMEOUT_MS);
        int heartbeat = within(configs, HEARTBEAT_INTERVAL_MS, MIN_HEARTBEAT_INTERVAL_MS, MAX_HEARTBEAT_INTERVAL_MS);
        if (heartbeat >= session) {
            throw new InvalidConfigException(HEARTBEAT_INTERVAL_MS.name(), Integer.toString(heartbeat),
                    "must be less than " + SESSION_TIMEOUT_MS.name() + " (" + session + ")");
        }
        return new ConsumerGroupConfig(session, heartbeat, intValue(configs, MAX_SIZE), names);
    }

    /**
     * Why {@code settings} cannot be one group's own settings on a broker whose group settings are
     * {@code brokerConfigs} (Kafka's names), or null: Kafka's checks and messages. Only
     * {@link #GROUP_SETTINGS} are known (Kafka's share and streams settings are refused: Brook has
     * no such groups); each an int within the broker's {@code group.consumer.min/max.*} bounds;
     * the session timeout, the group's or else the broker's, above the heartbeat interval.
     */
    public static String groupSettingsProblem(Map<String, String> brokerConfigs, Map<String, String> settings) {
        for (String name : settings.keySet()) {
            if (!GROUP_SETTINGS.contains(name)) {
                return KAFKA_ONLY_GROUP_SETTINGS.contains(name)
                        ? "Group config " + name + " is not supported: Brook has consumer groups and their "
                                + String.join(" and ", GROUP_SETTINGS) + " only"
                        : "Unknown group config name: " + name;
            }
        }
        int session;
        int heartbeat;
        try {
            session = groupInt(settings, GROUP_SESSION_TIMEOUT_MS, intValue(brokerConfigs, SESSION_TIMEOUT_MS));
            heartbeat = groupInt(settings, GROUP_HEARTBEAT_INTERVAL_MS, intValue(brokerConfigs, HEARTBEAT_INTERVAL_MS));
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
        String problem = bound(GROUP_HEARTBEAT_INTERVAL_MS, heartbeat, brokerConfigs, MIN_HEARTBEAT_INTERVAL_MS,
                MAX_HEARTBEAT_INTERVAL_MS);
        if (problem == null) {
            problem = bound(GROUP_SESSION_TIMEOUT_MS, session, brokerConfigs, MIN_SESSION_TIMEOUT_MS,
                    MAX_SESSION_TIMEOUT_MS);
        }
        if (problem == null && session <= heartbeat) {
            problem = GROUP_SESSION_TIMEOUT_MS + " must be greater than " + GROUP_HEARTBEAT_INTERVAL_MS;
        }
        return problem;
    }

    private static int groupInt(Map<String, String> settings, String name, int otherwise) {
        String v = settings.get(name);
        if (v == null) return otherwise;
        int value;
        try {
            value = Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Invalid value " + v + " for configuration " + name
                    + ": Not a number of type INT", e);
        }
        if (value < 1) {
            throw new IllegalArgumentException("Invalid value " + v + " for configuration " + name
                    + ": Value must be at least 1");
        }
        return value;
    }

    /** Kafka 4.4's check and words: "... must be in the range 500 to 15000 inclusive." */
    private static String bound(String name, int value, Map<String, String> brokerConfigs, ConfigKey min,
            ConfigKey max) {
        int lo = intValue(brokerConfigs, min);
        int hi = intValue(brokerConfigs, max);
        return value < lo || value > hi ? name + " must be in the range " + lo + " to " + hi + " inclusive." : null;
    }

    /** A setting that Kafka requires to lie between two others, checked as Kafka checks it. */
    private static int within(Map<String, String> configs, ConfigKey key, ConfigKey min, ConfigKey max) {
        int value = intValue(configs, key);
        int lo = intValue(configs, min);
        int hi = intValue(configs, max);
        if (value < lo || value > hi) {
            throw new InvalidConfigException(key.name(), Integer.toString(value),
                    "must be between " + min.name() + " (" + lo + ") and " + max.name() + " (" + hi + ")");
        }
        return value;
    }

    private static int intValue(Map<String, String> configs, ConfigKey key) {
        return key.parseInt(configs.getOrDefault(key.name(), key.defaultValue()));
    }

    /** {@code uniform} or {@code range} for a name Brook knows (its own or Kafka's class name), else null. */
    private static String assignorName(String configured) {
        String s = configured.trim();
        if (ServerAssignors.NAMES.contains(s)) return s;
        if (s.equals(KAFKA_ASSIGNOR_PACKAGE + "UniformAssignor")) return ServerAssignors.UNIFORM;
        if (s.equals(KAFKA_ASSIGNOR_PACKAGE + "RangeAssignor")) return ServerAssignors.RANGE;
        return null;
    }

    /**
     * These settings with a group's own {@value #GROUP_SESSION_TIMEOUT_MS} and
     * {@value #GROUP_HEARTBEAT_INTERVAL_MS} in place of the broker's (checked when they were set;
     * one that does not parse as a positive number is ignored).
     */
    ConsumerGroupConfig forGroup(Map<String, String> overrides) {
        if (overrides.isEmpty()) return this;
        int session = positive(overrides.get(GROUP_SESSION_TIMEOUT_MS), sessionTimeoutMs);
        int heartbeat = positive(overrides.get(GROUP_HEARTBEAT_INTERVAL_MS), heartbeatIntervalMs);
        return new ConsumerGroupConfig(session, heartbeat, maxSize, assignors);
    }

    private static int positive(String value, int otherwise) {
        if (value == null) return otherwise;
        try {
            int v = Integer.parseInt(value.trim());
            return v > 0 ? v : otherwise;
        } catch (NumberFormatException e) {
            return otherwise;
        }
    }

    String defaultAssignor() {
        return assignors.get(0);
    }
}
