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

    String defaultAssignor() {
        return assignors.get(0);
    }
}
