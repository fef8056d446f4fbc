package io.brook.storage;

import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Clock;
import java.util.function.BiPredicate;
import java.util.function.Consumer;
import java.util.function.Function;

/** Broker-level settings of the storage layer (Kafka's names in the comments). */
public final class LogManagerOptions {
    final Path dataDir;
    LogConfig defaults = LogConfig.defaults();
    Function<String, LogConfig> topicConfigs;
    BiPredicate<String, Integer> belongs = (topic, partition) -> true;
    FileDescriptors files = FileDescriptors.UNBOUNDED;
    Clock clock = Clock.systemUTC();
    int recoveryThreads = Math.max(1, Runtime.getRuntime().availableProcessors());
    long retentionCheckIntervalMs = 300_000L;
    long flushCheckIntervalMs = 1_000L;
    long checkpointIntervalMs = 60_000L;
    long earlyCheckpointBytes = EarlyCheckpoint.DEFAULT_THRESHOLD_BYTES;
    int flushThreads = Flusher.DEFAULT_THREADS;
    long flushCoalesceMs = Flusher.DEFAULT_COALESCE_MS;
    long flushCoalesceUnreadMs = Flusher.DEFAULT_UNREAD_COALESCE_MS;
    int preallocateBytes = Preallocator.DEFAULT_MAX_BYTES;
    long cleanerBackoffMs = 15_000L;
    long producerIdExpirationMs = 86_400_000L;
    long producerIdExpirationCheckIntervalMs = 600_000L;
    int maxProducerIdsPerPartition = ProducerStateManager.DEFAULT_MAX_PRODUCERS;
    boolean cleanerEnable = true;
    long cleanerDedupeBufferSize = LogCleaner.DEFAULT_DEDUPE_BUFFER_BYTES;
    boolean backgroundThreads = true;
    HighWatermarkListener highWatermarkListener;
    FlushObserver flushObserver = FlushObserver.NONE;

    /** {@code log.dirs} (one directory). */
    Consumer<String> progressLines = LoggerFactory.getLogger(LogManager.class)::info;

    public LogManagerOptions(Path dataDir) {
        this.dataDir = dataDir;
    }

    /** The broker-wide defaults ({@code log.*} settings mapped to topic names). */
    public LogManagerOptions defaults(LogConfig c) { this.defaults = c; return this; }

    /** Config of an existing topic at start-up (the server's persisted topic configs); null → defaults. */
    public LogManagerOptions topicConfigs(Function<String, LogConfig> f) { this.topicConfigs = f; return this; }

    /**
     * Which partition directories found at start-up belong (the server: a registered topic's
     * partitions, and the internal topics'); the others are deleted without being opened, so
     * that directories a failed or interrupted topic creation left cannot take the files or the
     * time a start needs. Default: every directory belongs.
     */
    public LogManagerOptions belongs(BiPredicate<String, Integer> p) { this.belongs = p; return this; }

    /**
     * The process's file descriptors, whose headroom the logs' rolls respect (see
     * {@link FileDescriptors}); default unbounded, the server passes {@link FileDescriptors#ofProcess()}.
     */
    public LogManagerOptions fileDescriptors(FileDescriptors f) { this.files = f; return this; }

    public LogManagerOptions clock(Clock c) { this.clock = c; return this; }

    /** {@code num.recovery.threads.per.data.dir}. */
    public LogManagerOptions recoveryThreads(int n) { this.recoveryThreads = Math.max(1, n); return this; }

    /** {@code log.retention.check.interval.ms}, default 5 minutes. */
    public LogManagerOptions retentionCheckIntervalMs(long ms) { this.retentionCheckIntervalMs = ms; return this; }

    /** {@code log.flush.scheduler.interval.ms}: how often {@code flush.ms} is checked. */
    public LogManagerOptions flushCheckIntervalMs(long ms) { this.flushCheckIntervalMs = ms; return this; }

    /**
     * {@code brook.log.flush.threads}: how many fsyncs of different partitions may run at once
     * (default 8); more help when many partitions take acks=all writes at the same time.
     */
    public LogManagerOptions flushThreads(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("flush threads must be at least 1, not " + n);
        }
        this.flushThreads = n;
        return this;
    }

    /** {@code brook.log.flush.coalesce.ms}: the delay of forces nobody waits for, 0..1000 ms (see {@link Flusher}). */
    public LogManagerOptions flushCoalesceMs(long ms) { this.flushCoalesceMs = Flusher.checkCoalesceMs(ms); return this; }

    /**
     * {@code brook.log.flush.coalesce.unread.ms}: the delay of forces nobody waits for while no
     * reader is at the log's end, 0..1000 ms; below {@code flushCoalesceMs} it is that (see {@link Flusher}).
     */
    public LogManagerOptions flushCoalesceUnreadMs(long ms) {
        this.flushCoalesceUnreadMs = Flusher.checkCoalesceMs("brook.log.flush.coalesce.unread.ms", ms);
        return this;
    }

    /**
     * {@code brook.log.preallocate.bytes}: the most zeros written ahead of an active
     * segment's data (default 4 MiB; 0 turns preallocation off), see {@link Preallocator}.
     */
    public LogManagerOptions preallocateBytes(int bytes) {
        if (bytes != 0 && bytes < Preallocator.MIN_BYTES) {
            throw new IllegalArgumentException("preallocation must be 0 (off) or at least "
                    + Preallocator.MIN_BYTES + " bytes, not " + bytes);
        }
        this.preallocateBytes = bytes;
        return this;
    }

    /** {@code log.flush.offset.checkpoint.interval.ms}, default 60 s. */
    public LogManagerOptions checkpointIntervalMs(long ms) { this.checkpointIntervalMs = ms; return this; }

    /** Checkpoint earlier once this many bytes became durable since the last one (256 MiB; {@link EarlyCheckpoint}). */
    public LogManagerOptions earlyCheckpointBytes(long bytes) { this.earlyCheckpointBytes = Math.max(1, bytes); return this; }

    /** {@code log.cleaner.backoff.ms}, default 15 s. */
    public LogManagerOptions cleanerBackoffMs(long ms) { this.cleanerBackoffMs = ms; return this; }

    /** {@code producer.id.expiration.ms}, default 1 day. */
    public LogManagerOptions producerIdExpirationMs(long ms) { this.producerIdExpirationMs = ms; return this; }

    /** {@code producer.id.expiration.check.interval.ms}: how often idle producers are expired, default 10 minutes. */
    public LogManagerOptions producerIdExpirationCheckIntervalMs(long ms) {
        this.producerIdExpirationCheckIntervalMs = ms;
        return this;
    }

    /**
     * {@code brook.max.producer.ids.per.partition}: the most idempotent producers whose state one
     * partition holds, default 100,000 (see {@link ProducerStateManager}).
     */
    public LogManagerOptions maxProducerIdsPerPartition(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("brook.max.producer.ids.per.partition must be at least 1, not " + max);
        }
        this.maxProducerIdsPerPartition = max;
        return this;
    }

    /** {@code log.cleaner.dedupe.buffer.size}: memory of the compaction key map, default 128 MiB. */
    public LogManagerOptions cleanerDedupeBufferSize(long bytes) { this.cleanerDedupeBufferSize = bytes; return this; }

    /** {@code log.cleaner.enable}, default true. */
    public LogManagerOptions cleanerEnable(boolean b) { this.cleanerEnable = b; return this; }

    /** Installed on every log this manager opens or creates. */
    public LogManagerOptions highWatermarkListener(HighWatermarkListener l) { this.highWatermarkListener = l; return this; }

    /** Told of every group-commit round that made data durable (see {@link FlushObserver}). */
    public LogManagerOptions flushObserver(FlushObserver o) { this.flushObserver = o; return this; }

    /** Off: no periodic retention/cleaner/checkpoint threads (the flusher still runs). */
    public LogManagerOptions backgroundThreads(boolean b) { this.backgroundThreads = b; return this; }

    /** Where the progress lines of start-up recovery go ({@link ProgressLog}); the log by default. */
    public LogManagerOptions progressLines(Consumer<String> lines) { this.progressLines = lines; return this; }
}
