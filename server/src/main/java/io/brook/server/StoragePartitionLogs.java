package io.brook.server;

import io.brook.storage.Log;
import io.brook.storage.LogConfig;
import io.brook.storage.LogManager;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link PartitionLogs} over the storage module's {@link LogManager}: recovery at start-up,
 * group-commit flushing, retention and compaction in the background, clean-shutdown marker on
 * close, and high-watermark events for long-poll fetches. Existing logs open with the config the topic registry holds for their topic.
 */
final class StoragePartitionLogs implements PartitionLogs {

    private final LogManager manager;

    private StoragePartitionLogs(LogManager manager) {
        this.manager = manager;
    }

    static StoragePartitionLogs open(BrokerConfig broker, Path dataDir, TopicRegistry registry, TopicConfigs configs,
            FetchWaiters fetchWaiters) throws IOException {
        LogManager.Options options = new LogManager.Options(dataDir)
                .recoveryThreads(broker.intValue(BrokerConfig.NUM_RECOVERY_THREADS))
                .flushThreads(broker.intValue(BrokerConfig.LOG_FLUSH_THREADS))
                .preallocateBytes(broker.intValue(BrokerConfig.LOG_PREALLOCATE_BYTES))
                .retentionCheckIntervalMs(broker.longValue(BrokerConfig.LOG_RETENTION_CHECK_INTERVAL_MS))
                .flushCheckIntervalMs(broker.longValue(BrokerConfig.LOG_FLUSH_SCHEDULER_INTERVAL_MS))
                .checkpointIntervalMs(broker.longValue(BrokerConfig.LOG_FLUSH_CHECKPOINT_INTERVAL_MS))
                .cleanerEnable(broker.bool(BrokerConfig.LOG_CLEANER_ENABLE))
                .cleanerBackoffMs(broker.longValue(BrokerConfig.LOG_CLEANER_BACKOFF_MS))
                .cleanerDedupeBufferSize(broker.longValue(BrokerConfig.LOG_CLEANER_DEDUPE_BUFFER_SIZE))
                // every high-watermark move (after the group commit, or after the write when
                // fsync-on-ack is off), whoever appended, wakes the fetches waiting on that partition
                .highWatermarkListener((log, hw) -> fetchWaiters.wake(new TopicPartition(log.topic(), log.partition())))
                .defaults(configs.effective(java.util.Map.of()))
                .topicConfigs(topic -> {
                    TopicInfo t = registry.get(topic);
                    return t == null ? null : configs.effective(t.configs());
                });
        return new StoragePartitionLogs(LogManager.open(options));
    }

    @Override
    public Log log(String topic, int partition) {
        return manager.getLog(topic, partition);
    }

    @Override
    public List<TopicPartition> partitions() {
        List<TopicPartition> out = new ArrayList<>();
        for (Log log : manager.allLogs()) {
            out.add(new TopicPartition(log.topic(), log.partition()));
        }
        return out;
    }

    @Override
    public void deletePartition(String topic, int partition) throws IOException {
        manager.deleteLog(topic, partition);
    }

    @Override
    public void open(String topic, int from, int to, LogConfig config) throws IOException {
        for (int p = from; p < to; p++) {
            manager.getOrCreateLog(topic, p, config);
        }
    }

    @Override
    public void reconfigure(String topic, int partitions, LogConfig config) {
        manager.updateConfig(topic, config);
    }

    @Override
    public void delete(String topic, int partitions) throws IOException {
        for (int p = 0; p < partitions; p++) {
            manager.deleteLog(topic, p);
        }
    }

    @Override
    public void close() throws IOException {
        manager.close();
    }
}
