package io.brook.coordinator.txn;

import java.util.List;
import java.util.Map;

import io.brook.storage.config.ConfigKey;
import io.brook.storage.config.ConfigKey.Check;
import io.brook.storage.config.ConfigKey.Type;

/**
 * Settings of the transaction coordinator under Kafka's broker config names and defaults.
 *
 * @param maxTimeoutMs               {@code transaction.max.timeout.ms}: the longest transaction
 *                                   time-out a producer may ask for (15 minutes)
 * @param transactionalIdExpirationMs {@code transactional.id.expiration.ms}: a transactional id
 *                                   with no transaction in progress and no change for this long
 *                                   is forgotten (7 days)
 * @param abortTimedOutIntervalMs    {@code transaction.abort.timed.out.transaction.cleanup.interval.ms}:
 *                                   how often transactions past their time-out are aborted (10 s)
 * @param removeExpiredIntervalMs    {@code transaction.remove.expired.transaction.cleanup.interval.ms}:
 *                                   how often expired transactional ids are removed (1 hour)
 * @param partitions                 {@code transaction.state.log.num.partitions}: partitions of
 *                                   {@code __transaction_state} (50)
 * @param segmentBytes               {@code transaction.state.log.segment.bytes} (100 MiB)
 */
public record TxnCoordinatorConfig(int maxTimeoutMs, long transactionalIdExpirationMs, long abortTimedOutIntervalMs,
                                   long removeExpiredIntervalMs, int partitions, int segmentBytes) {

    /** The internal compacted topic of the transaction coordinator. */
    public static final String TOPIC = "__transaction_state";

    private static final ConfigKey MAX_TIMEOUT_MS =
            ConfigKey.of("transaction.max.timeout.ms", Type.INT, "900000", Check.atLeast(1));
    private static final ConfigKey ID_EXPIRATION_MS =
            ConfigKey.of("transactional.id.expiration.ms", Type.INT, "604800000", Check.atLeast(1));
    private static final ConfigKey ABORT_INTERVAL_MS =
            ConfigKey.of("transaction.abort.timed.out.transaction.cleanup.interval.ms", Type.INT, "10000", Check.atLeast(1));
    private static final ConfigKey REMOVE_INTERVAL_MS =
            ConfigKey.of("transaction.remove.expired.transaction.cleanup.interval.ms", Type.INT, "3600000", Check.atLeast(1));
    private static final ConfigKey NUM_PARTITIONS =
            ConfigKey.of("transaction.state.log.num.partitions", Type.INT, "50", Check.atLeast(1));
    private static final ConfigKey SEGMENT_BYTES =
            ConfigKey.of("transaction.state.log.segment.bytes", Type.INT, "104857600", Check.atLeast(1));

    private static final List<ConfigKey> KEYS = List.of(MAX_TIMEOUT_MS, ID_EXPIRATION_MS, ABORT_INTERVAL_MS,
            REMOVE_INTERVAL_MS, NUM_PARTITIONS, SEGMENT_BYTES);

    /** Kafka's broker config names this class reads in {@link #fromConfigs}. */
    public static final List<String> CONFIG_NAMES = KEYS.stream().map(ConfigKey::name).toList();

    public TxnCoordinatorConfig {
        if (maxTimeoutMs < 1 || transactionalIdExpirationMs < 1 || abortTimedOutIntervalMs < 1
                || removeExpiredIntervalMs < 1 || partitions < 1 || segmentBytes < 1) {
            throw new IllegalArgumentException("transaction coordinator settings must be positive");
        }
    }

    /** Kafka's defaults. */
    public static TxnCoordinatorConfig defaults() {
        return fromConfigs(Map.of());
    }

    /**
     * From broker settings under Kafka's names ({@link #CONFIG_NAMES}); absent names keep Kafka's
     * defaults, other names are ignored.
     *
     * @throws IllegalArgumentException for a value that is not a number or out of range
     */
    public static TxnCoordinatorConfig fromConfigs(Map<String, String> configs) {
        return new TxnCoordinatorConfig(intValue(configs, MAX_TIMEOUT_MS), intValue(configs, ID_EXPIRATION_MS),
                intValue(configs, ABORT_INTERVAL_MS), intValue(configs, REMOVE_INTERVAL_MS),
                intValue(configs, NUM_PARTITIONS), intValue(configs, SEGMENT_BYTES));
    }

    private static int intValue(Map<String, String> configs, ConfigKey key) {
        return key.parseInt(configs.getOrDefault(key.name(), key.defaultValue()));
    }

    /** The same settings with another number of {@code __transaction_state} partitions. */
    public TxnCoordinatorConfig withPartitions(int n) {
        return new TxnCoordinatorConfig(maxTimeoutMs, transactionalIdExpirationMs, abortTimedOutIntervalMs,
                removeExpiredIntervalMs, n, segmentBytes);
    }

    /** The same settings with other time-outs (tests). */
    public TxnCoordinatorConfig withTimes(int maxTimeout, long idExpiration, long abortInterval, long removeInterval) {
        return new TxnCoordinatorConfig(maxTimeout, idExpiration, abortInterval, removeInterval, partitions, segmentBytes);
    }

    /** The {@code __transaction_state} partition of a transactional id: Kafka's {@code abs(hashCode) % partitions}. */
    public int partitionFor(String transactionalId) {
        int h = transactionalId.hashCode();
        return (h == Integer.MIN_VALUE ? 0 : Math.abs(h)) % partitions;
    }
}
