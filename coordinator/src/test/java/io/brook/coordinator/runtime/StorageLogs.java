package io.brook.coordinator.runtime;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.util.Map;

import io.brook.storage.LogConfig;
import io.brook.storage.LogManager;
import io.brook.wire.record.Compression;

/** A {@link StorageCoordinatorLog} over the logs of a {@link LogManager}, as the broker builds one. */
public final class StorageLogs {

    private StorageLogs() {
    }

    /**
     * Over the {@code <topic>-<n>} logs of {@code logManager}, created on first use with the default
     * config plus {@code cleanup.policy=compact} (an existing log keeps its config).
     */
    public static StorageCoordinatorLog compacted(LogManager logManager, String topic, int partitions, Clock clock) {
        return compacted(logManager, topic, partitions, LogConfig.defaults(), clock);
    }

    static StorageCoordinatorLog compacted(LogManager logManager, String topic, int partitions, LogConfig config, Clock clock) {
        return compacted(logManager, topic, partitions, config, clock, Compression.NONE);
    }

    /** As above, writing batches of records with {@code compression}. */
    static StorageCoordinatorLog compacted(LogManager logManager, String topic, int partitions, LogConfig config, Clock clock,
            Compression compression) {
        LogConfig compacted = config.with(Map.of(LogConfig.CLEANUP_POLICY, "compact"));
        return new StorageCoordinatorLog(topic, partitions, p -> {
            try {
                return logManager.getOrCreateLog(topic, p, compacted);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, clock, compression);
    }
}
