package io.brook.server.topic;

import io.brook.server.config.BrokerConfig;
import io.brook.storage.FileDescriptors;
import io.brook.storage.FlushObserver;
import io.brook.storage.Log;
import io.brook.storage.LogConfig;
import io.brook.storage.LogManager;
import io.brook.storage.LogManagerOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The broker's partition logs: the storage module's {@link LogManager} opened with the broker's
 * settings, addressed by topic partition. The storage does the work — recovery at start-up,
 * the group commit, retention and compaction on its own threads, the clean-shutdown marker on
 * {@link #close()} — and this class only translates: broker keys to storage options, a topic's
 * effective config to its logs, high-watermark moves to a callback. Only {@link Topics} creates,
 * grows, reconfigures and deletes logs, so that logs and the registry agree. Thread-safe.
 */
public final class PartitionLogs implements AutoCloseable {

    private final LogManager manager;
    private final FileDescriptors files;

    private PartitionLogs(LogManager manager, FileDescriptors files) {
        this.manager = manager;
        this.files = files;
    }

    /**
     * Opens (and recovers) every log in {@code dataDir} that belongs to a registered topic (or
     * an internal one), and deletes the other partition directories unopened: a crash between
     * creating a topic's logs and recording it, or between forgetting a deleted topic and removing
     * its logs, leaves such directories, so does a creation that failed midway, and they must not
     * take the files or time the start needs. Existing logs open with the config the
     * registry holds for their topic. {@code onNewData} is called with a partition whenever its
     * high watermark moves — after the group commit, or after the write when fsync-on-ack is off —
     * whoever appended, on the thread that moved it; it must be cheap.
     */
    public static PartitionLogs open(BrokerConfig broker, Path dataDir, TopicRegistry registry,
            TopicConfigResolver configs, Consumer<TopicPartition> onNewData) throws IOException {
        return open(broker, dataDir, registry, configs, onNewData, FlushObserver.NONE);
    }

    /** As above, telling {@code flushes} of every group-commit round (metrics). */
    public static PartitionLogs open(BrokerConfig broker, Path dataDir, TopicRegistry registry,
            TopicConfigResolver configs, Consumer<TopicPartition> onNewData, FlushObserver flushes) throws IOException {
        FileDescriptors files = FileDescriptors.ofProcess();
        LogManagerOptions options = new LogManagerOptions(dataDir)
                .fileDescriptors(files)
                .recoveryThreads(broker.intValue(BrokerConfig.NUM_RECOVERY_THREADS))
                .flushThreads(broker.intValue(BrokerConfig.LOG_FLUSH_THREADS))
                .flushCoalesceMs(broker.longValue(BrokerConfig.LOG_FLUSH_COALESCE_MS))
                .flushCoalesceUnreadMs(broker.longValue(BrokerConfig.LOG_FLUSH_COALESCE_UNREAD_MS))
                .preallocateBytes(broker.intValue(BrokerConfig.LOG_PREALLOCATE_BYTES))
                .retentionCheckIntervalMs(broker.longValue(BrokerConfig.LOG_RETENTION_CHECK_INTERVAL_MS))
                .flushCheckIntervalMs(broker.longValue(BrokerConfig.LOG_FLUSH_SCHEDULER_INTERVAL_MS))
                .checkpointIntervalMs(broker.longValue(BrokerConfig.LOG_FLUSH_CHECKPOINT_INTERVAL_MS))
                .cleanerEnable(broker.bool(BrokerConfig.LOG_CLEANER_ENABLE))
                .cleanerBackoffMs(broker.longValue(BrokerConfig.LOG_CLEANER_BACKOFF_MS))
                .cleanerDedupeBufferSize(broker.longValue(BrokerConfig.LOG_CLEANER_DEDUPE_BUFFER_SIZE))
                .producerIdExpirationMs(broker.intValue(BrokerConfig.PRODUCER_ID_EXPIRATION_MS))
                .producerIdExpirationCheckIntervalMs(broker.intValue(BrokerConfig.PRODUCER_ID_EXPIRATION_CHECK_INTERVAL_MS))
                .maxProducerIdsPerPartition(broker.intValue(BrokerConfig.MAX_PRODUCER_IDS_PER_PARTITION))
                .flushObserver(flushes)
                .highWatermarkListener((log, hw) -> onNewData.accept(new TopicPartition(log.topic(), log.partition())))
                .defaults(configs.effective(Map.of()))
                .topicConfigs(topic -> {
                    Topic t = registry.get(topic);
                    return t == null ? null : configs.effective(t.configs());
                })
                .belongs((topic, partition) -> Topics.registered(registry, topic, partition));
        return new PartitionLogs(LogManager.open(options), files);
    }

    /**
     * A reading of the process's file descriptors to check new logs against, with the headroom
     * kept free ({@link FileDescriptors}); one per request, as a reading lists every open file.
     */
    FileDescriptors.Budget fileBudget() {
        return files.budget();
    }

    /** The log of a partition, or null when there is none. */
    Log log(String topic, int partition) {
        return manager.getLog(topic, partition);
    }

    /** Every partition log, internal topics' included. */
    Collection<Log> all() {
        return manager.allLogs();
    }

    /** Closes and deletes one partition's log, if there is one. */
    void deletePartition(String topic, int partition) throws IOException {
        manager.deleteLog(topic, partition);
    }

    /**
     * Creates (or opens, after a restart) the logs of partitions {@code from} to {@code to - 1}.
     * All or nothing: when one cannot be created (no file descriptors or space left), the logs
     * this call created are closed and deleted again before the failure is thrown, so that a
     * refused creation holds no files.
     */
    void open(String topic, int from, int to, LogConfig config) throws IOException {
        List<Integer> created = new ArrayList<>();
        try {
            for (int p = from; p < to; p++) {
                boolean isNew = manager.getLog(topic, p) == null;
                manager.getOrCreateLog(topic, p, config);
                if (isNew) {
                    created.add(p);
                }
            }
        } catch (IOException | RuntimeException e) {
            for (int p : created) {
                try {
                    manager.deleteLog(topic, p);
                } catch (IOException | RuntimeException undo) {
                    e.addSuppressed(undo);
                }
            }
            throw e;
        }
    }

    /** Applies a new config to every log of the topic. */
    void reconfigure(String topic, LogConfig config) {
        manager.updateConfig(topic, config);
    }

    /** Closes and deletes the topic's logs. */
    void delete(String topic, int partitions) throws IOException {
        for (int p = 0; p < partitions; p++) {
            manager.deleteLog(topic, p);
        }
    }

    /** Stops as a kill would: nothing flushed, no clean-shutdown marker (the fault hooks' crash). */
    public void crash() throws IOException {
        manager.crash();
    }

    /** Flushes every log and writes the clean-shutdown marker. */
    @Override
    public void close() throws IOException {
        manager.close();
    }
}
