package io.brook.storage;

import io.brook.storage.file.DurableFiles;
import io.brook.wire.protocol.LogSafe;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * All partition logs of one data directory ({@code log.dirs}): {@code <dir>/<topic>-<partition>/}.
 *
 * <p>Start-up opens every log in parallel. If the previous run did not leave the clean-shutdown
 * marker, each log is recovered from its recovery point (read from
 * {@code recovery-point-offset-checkpoint}), and once all logs are open the checkpoint is
 * written (recovery forced what it scanned), so that a crash soon after does not scan it all
 * again; the marker is removed once all logs are open, so a crash from then on is seen as
 * unclean. Close flushes everything, writes the checkpoint and then the marker. While running,
 * the checkpoint is written every interval and also as soon as 256 MiB became durable since the
 * last one ({@link EarlyCheckpoint}), which bounds the next unclean start's scan.
 *
 * <p>Background threads: the {@link Flusher} (group commit for every log), a scheduler for
 * retention, the expiry of idle producers, time-based flushes, checkpoints and delayed file
 * deletion, and a cleaner thread for compaction. The background passes can also be run directly
 * ({@link #runRetention}, {@link #expireProducers}, {@link #runCleaner},
 * {@link #checkpointRecoveryPoints}) — tests do so with an injected clock and
 * {@link LogManagerOptions#backgroundThreads(boolean) background threads off}.
 *
 * <p>Cost of many partitions: creating a log is one directory and one file creation and no
 * fsync (the log fsyncs its new directory entries with its first flush of data, before that
 * data counts as durable); close forces only the files that changed since their last flush,
 * writes no index files or producer snapshot for empty logs, and closes the logs in parallel
 * ({@link LogManagerOptions#recoveryThreads}).
 *
 * <p>Threading: every public method is safe to call from any thread. Creating and deleting a
 * given partition's log are serialised by this manager.
 */
public final class LogManager implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LogManager.class);
    public static final String CLEAN_SHUTDOWN_FILE = ".brook_cleanshutdown";
    public static final String RECOVERY_POINT_FILE = "recovery-point-offset-checkpoint";
    /** Held locked while a manager owns the directory, so that two brokers never share one. */
    public static final String LOCK_FILE = ".lock";
    static final String DELETE_DIR_SUFFIX = "-delete";
    /** The longest file name the file systems Brook runs on accept (ext4, xfs, tmpfs). */
    private static final int MAX_FILE_NAME_BYTES = 255;
    private static final Pattern LEGAL_TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");


    private record TopicPartition(String topic, int partition) {
        @Override
        public String toString() {
            return topic + "-" + partition;
        }
    }

    private final LogManagerOptions options;
    private final Path dir;
    private final Clock clock;
    private final Flusher flusher;
    /** Null when preallocation is off. */
    private final Preallocator preallocator;
    private final Scheduler scheduler;
    private final Scheduler cleanerScheduler;
    private final LogCleaner cleaner;
    private FileChannel lockChannel;
    private FileLock dirLock;
    private final ConcurrentHashMap<TopicPartition, Log> logs = new ConcurrentHashMap<>();
    private final EarlyCheckpoint earlyCheckpoint;
    private final Object createLock = new Object();
    private volatile boolean closed;

    private LogManager(LogManagerOptions options) {
        this.options = options;
        this.earlyCheckpoint = new EarlyCheckpoint(options.earlyCheckpointBytes);
        this.dir = options.dataDir;
        this.clock = options.clock;
        this.flusher = new Flusher("brook-log-flusher", options.flushThreads, options.flushCoalesceMs,
                options.flushCoalesceUnreadMs);
        flusher.observer(options.flushObserver);
        this.preallocator = options.preallocateBytes == 0 ? null
                : new Preallocator("brook-log-preallocator", options.preallocateBytes, options.clock);
        this.scheduler = new Scheduler("brook-log-scheduler", this::onBackgroundError);
        this.cleanerScheduler = new Scheduler("brook-log-cleaner", this::onBackgroundError);
        this.cleaner = new LogCleaner(options.cleanerDedupeBufferSize);
    }

    /** Opens (recovering if needed) every log in the data directory and starts the background threads. */
    public static LogManager open(LogManagerOptions options) throws IOException {
        LogManager m = new LogManager(options);
        try {
            m.loadLogs();
        } catch (IOException | RuntimeException e) {
            m.shutdownThreads();
            m.releaseDirectory();
            throw e;
        }
        m.startBackground();
        return m;
    }

    private void loadLogs() throws IOException {
        Files.createDirectories(dir);
        lockChannel = FileChannel.open(dir.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        try {
            dirLock = lockChannel.tryLock();
        } catch (OverlappingFileLockException e) {
            dirLock = null;
        }
        if (dirLock == null) {
            lockChannel.close();
            throw new IOException("data directory " + dir + " is in use by another process or manager");
        }
        Path marker = dir.resolve(CLEAN_SHUTDOWN_FILE);
        boolean clean = Files.exists(marker);
        Map<String, Long> recoveryPoints = readRecoveryPoints();
        List<Path> partitionDirs = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : files.toList()) {
                String n = p.getFileName().toString();
                if (!Files.isDirectory(p)) {
                    continue;
                }
                TopicPartition tp = parse(n);
                if (n.endsWith(DELETE_DIR_SUFFIX)) {
                    removeLeftover(p);
                } else if (tp != null && options.belongs.test(tp.topic(), tp.partition())) {
                    partitionDirs.add(p);
                } else if (tp != null) {
                    removeStray(p, tp);
                }
            }
        }
        ExecutorService pool = Executors.newFixedThreadPool(options.recoveryThreads, r -> {
            Thread t = new Thread(r, "brook-log-recovery");
            t.setDaemon(true);
            return t;
        });
        String where = (clean ? "Opening logs in " : "Recovering logs in ") + dir;
        ProgressLog progress = new ProgressLog(where, clean ? "Opened logs in " + dir : "Recovered logs in " + dir,
                "logs", partitionDirs.size(), ProgressLog.Unit.BYTES, System::nanoTime, ProgressLog.DEFAULT_INTERVAL_MS,
                options.progressLines);
        try {
            List<Future<Log>> futures = new ArrayList<>();
            for (Path p : partitionDirs) {
                TopicPartition tp = parse(p.getFileName().toString());
                long rp = recoveryPoints.getOrDefault(tp.toString(), 0L);
                futures.add(pool.submit(() -> {
                    Log log = Log.open(p, tp.topic(), tp.partition(), configFor(tp.topic()), rp, clean,
                            clock, scheduler, flusher, preallocator);
                    progress.advance(1, log.sizeInBytes());
                    return log;
                }));
            }
            List<String> failures = new ArrayList<>();
            for (int i = 0; i < futures.size(); i++) {
                try {
                    Log log = futures.get(i).get();
                    log.producers.setMaxProducers(options.maxProducerIdsPerPartition);
                    log.setHighWatermarkListener(options.highWatermarkListener);
                    log.files = options.files;
                    log.setTruncationListener(truncated -> checkpointRecoveryPoints());
                    logs.put(new TopicPartition(log.topic(), log.partition()), log);
                } catch (ExecutionException e) {
                    LOG.error("could not open {}", partitionDirs.get(i), e.getCause());
                    failures.add(partitionDirs.get(i) + ": " + e.getCause());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while opening logs", e);
                }
            }
            if (!failures.isEmpty()) {
                for (Log log : logs.values()) {
                    log.closeAbruptly();
                }
                throw new IOException("could not open " + failures.size() + " logs: " + failures);
            }
        } finally {
            pool.shutdownNow();
        }
        if (!partitionDirs.isEmpty()) {
            progress.finish();
        }
        if (clean) {
            LOG.info("opened {} logs in {} after a clean shutdown", logs.size(), dir);
        } else if (partitionDirs.isEmpty()) {
            LOG.info("opened {} with no logs in it", dir); // new, or no clean shutdown before any log was made
        } else {
            LOG.info("recovered {} logs in {} after an unclean shutdown", logs.size(), dir);
        }
        if (!clean) {
            // Recovery forced everything it scanned: record that, or the next unclean start (a
            // crash loop) scans it all again, and a little more each time.
            try {
                checkpointRecoveryPoints();
            } catch (IOException e) {
                LOG.warn("could not write the recovery-point checkpoint after recovery", e);
            }
        }
        Files.deleteIfExists(marker);
        DurableFiles.fsyncDirectory(dir);
    }

    private LogConfig configFor(String topic) {
        LogConfig c = options.topicConfigs == null ? null : options.topicConfigs.apply(topic);
        return c == null ? options.defaults : c;
    }

    private void startBackground() {
        if (!options.backgroundThreads) {
            return;
        }
        scheduler.schedulePeriodic(() -> runRetention(), options.retentionCheckIntervalMs);
        scheduler.schedulePeriodic(() -> expireProducers(), options.producerIdExpirationCheckIntervalMs);
        scheduler.schedulePeriodic(this::flushByTime, options.flushCheckIntervalMs);
        scheduler.schedulePeriodic(() -> scheduledCheckpoint(false), options.checkpointIntervalMs);
        scheduler.schedulePeriodic(() -> scheduledCheckpoint(true), options.flushCheckIntervalMs);
        if (options.cleanerEnable) {
            cleanerScheduler.schedulePeriodic(() -> runCleaner(), options.cleanerBackoffMs);
        }
    }

    /**
     * Removes a directory an interrupted topic deletion left behind. Failing to is no reason to
     * refuse to start: the directory holds no partition any more, so it is logged and left for
     * the next start.
     */
    private static void removeLeftover(Path p) {
        LOG.info("removing {} left by a topic deletion", p);
        try {
            DurableFiles.deleteRecursively(p);
        } catch (IOException | RuntimeException e) {
            LOG.warn("could not remove {} (left by a topic deletion); starting without it", p, e);
        }
    }

    /** Removes what a log creation that failed (no file descriptors left, say) made of its new directory. */
    private static void removeFailedCreation(Path logDir, Exception cause) {
        try {
            DurableFiles.deleteRecursively(logDir);
        } catch (IOException | RuntimeException e) {
            cause.addSuppressed(e);
        }
    }

    /**
     * Deletes the directory of a partition that does not belong ({@link LogManagerOptions#belongs})
     * without opening it: renamed first, so that a crash midway leaves a leftover of a deletion,
     * not half a log. A failure is logged and the start goes on without that directory.
     */
    private void removeStray(Path p, TopicPartition tp) {
        LOG.warn("Deleting {} unopened: no topic has that partition (left by a failed or interrupted creation or deletion)",
                p);
        try {
            Path renamed = dir.resolve(deleteDirName(tp.topic(), tp.partition()));
            DurableFiles.moveAtomically(p, renamed);
            DurableFiles.deleteRecursively(renamed);
        } catch (IOException | RuntimeException e) {
            LOG.warn("could not delete {}; starting without it", p, e);
        }
    }

    static TopicPartition parse(String dirName) {
        int dash = dirName.lastIndexOf('-');
        if (dash <= 0 || dash == dirName.length() - 1) {
            return null;
        }
        String topic = dirName.substring(0, dash);
        if (!LEGAL_TOPIC.matcher(topic).matches()) {
            return null;
        }
        try {
            int partition = Integer.parseInt(dirName.substring(dash + 1));
            return partition < 0 ? null : new TopicPartition(topic, partition);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    // ------------------------------------------------------------------------------------------

    /** The log of a partition, or null if there is none. */
    public Log getLog(String topic, int partition) {
        return logs.get(new TopicPartition(topic, partition));
    }

    /** Every open log. */
    public Collection<Log> allLogs() {
        return List.copyOf(logs.values());
    }

    /**
     * The log of a partition, created empty with {@code config} if it does not exist yet (an
     * existing log keeps its config; use {@link #updateConfig}). Throws
     * {@link IllegalArgumentException} for an illegal topic name or a negative partition.
     */
    public Log getOrCreateLog(String topic, int partition, LogConfig config) throws IOException {
        if (!LEGAL_TOPIC.matcher(topic).matches() || topic.equals(".") || topic.equals("..")) {
            throw new IllegalArgumentException("illegal topic name '" + LogSafe.escape(topic) + "'");
        }
        if (partition < 0) {
            throw new IllegalArgumentException("negative partition " + partition);
        }
        TopicPartition tp = new TopicPartition(topic, partition);
        Log existing = logs.get(tp);
        if (existing != null) {
            return existing;
        }
        synchronized (createLock) {
            if (closed) {
                throw new IOException("log manager closed");
            }
            existing = logs.get(tp);
            if (existing != null) {
                return existing;
            }
            // No directory fsync here: the log fsyncs its entry in this directory before its first
            // data becomes durable, and close fsyncs this directory once for all of them.
            Path logDir = dir.resolve(tp.toString());
            boolean existed = Files.exists(logDir);
            Log log;
            try {
                log = Log.open(logDir, topic, partition, config, 0L, true, clock, scheduler, flusher, preallocator);
            } catch (IOException | RuntimeException e) {
                if (!existed) {
                    removeFailedCreation(logDir, e);
                }
                throw e;
            }
            log.producers.setMaxProducers(options.maxProducerIdsPerPartition);
            log.setHighWatermarkListener(options.highWatermarkListener);
            log.files = options.files;
            log.setTruncationListener(truncated -> checkpointRecoveryPoints());
            logs.put(tp, log);
            return log;
        }
    }

    /**
     * Deletes a partition's log: it stops taking appends and reads at once, its directory is
     * renamed to {@code <topic>-<partition>.<id>-delete} and removed (a crash in between leaves
     * a directory that start-up removes). Returns false if there was no such log.
     */
    public boolean deleteLog(String topic, int partition) throws IOException {
        synchronized (createLock) {
            Log log = logs.remove(new TopicPartition(topic, partition));
            if (log == null) {
                return false;
            }
            log.closeAbruptly();
            cleaner.forget(log);
            Path renamed = dir.resolve(deleteDirName(topic, partition));
            DurableFiles.moveAtomically(log.dir(), renamed);
            DurableFiles.deleteRecursively(renamed);
        }
        // As Kafka does: a checkpoint that still named the deleted log would hand its recovery
        // point to a log created again under the same name after a crash.
        try {
            checkpointRecoveryPoints();
        } catch (IOException e) {
            LOG.warn("could not write the recovery-point checkpoint after deleting {}-{}", topic, partition, e);
        }
        return true;
    }

    /**
     * The name a partition's directory takes while it is deleted:
     * {@code <topic>-<partition>.<random id>-delete}, with the topic cut short so that the name
     * fits the 255 bytes a file name may have (a topic name may have 249 characters, and the
     * suffix alone takes 40 or more). The random id keeps two deletions of a re-created topic
     * apart; start-up removes whatever such directory a crash left behind.
     */
    static String deleteDirName(String topic, int partition) {
        String suffix = "-" + partition + "." + UUID.randomUUID().toString().replace("-", "") + DELETE_DIR_SUFFIX;
        return topic.substring(0, Math.min(topic.length(), MAX_FILE_NAME_BYTES - suffix.length())) + suffix;
    }

    /**
     * An {@link Error} escaped a background task (retention, compaction, a checkpoint, a producer
     * snapshot, a delayed deletion): the task may have stopped half-way through any log's state,
     * so every log of this directory goes offline (appends, reads and durability waiters answer
     * KAFKA_STORAGE_ERROR) rather than carry on with state nobody can vouch for, and close writes
     * no clean-shutdown marker, so the next start checks everything.
     */
    private void onBackgroundError(Throwable error) {
        LOG.error("a storage background task failed with {}: every log of {} goes offline", error, dir, error);
        IOException cause = new IOException("a storage background task failed: " + error, error);
        for (Log log : logs.values()) {
            log.durability.fail(cause, false);
        }
    }

    /** Applies a new config to every partition of a topic. */
    public void updateConfig(String topic, LogConfig config) {
        for (Map.Entry<TopicPartition, Log> e : logs.entrySet()) {
            if (e.getKey().topic().equals(topic)) {
                e.getValue().updateConfig(config);
            }
        }
    }

    // ------------------------------------------------------------------------------------------
    // Background passes
    // ------------------------------------------------------------------------------------------

    /** One retention pass over all logs; returns the number of segments deleted. */
    public int runRetention() {
        long now = clock.millis();
        int n = 0;
        for (Log log : logs.values()) {
            if (log.durability.failure() != null) {
                continue;
            }
            n += log.deleteExpiredSegments(now);
        }
        return n;
    }

    /**
     * One pass over all logs that forgets the producers idle for {@code producer.id.expiration.ms}
     * (run every {@code producer.id.expiration.check.interval.ms}); returns how many were forgotten.
     */
    public int expireProducers() {
        long now = clock.millis();
        int n = 0;
        for (Log log : logs.values()) {
            if (log.durability.failure() == null) {
                n += log.expireProducers(now, options.producerIdExpirationMs);
            }
        }
        return n;
    }

    /** One compaction pass over the logs whose policy includes compact; returns the segments rewritten. */
    public int runCleaner() {
        int n = 0;
        for (Log log : logs.values()) {
            if (log.config().compact() && !log.isClosed() && log.durability.failure() == null) {
                try {
                    n += cleaner.clean(log, clock.millis());
                } catch (IOException | RuntimeException e) {
                    LOG.error("compaction of {} failed", log, e);
                }
            }
        }
        return n;
    }

    private void flushByTime() {
        long now = clock.millis();
        for (Log log : logs.values()) {
            log.maybeFlushByTime(now);
        }
    }

    /**
     * Writes every log's durable offset to {@code recovery-point-offset-checkpoint}. Serialised:
     * the offsets are read inside, so the last writer writes the latest (a truncation's lowered
     * offset is never overwritten by an older, higher one).
     */
    public void checkpointRecoveryPoints() throws IOException {
        checkpoint(false);
    }

    /** {@link #checkpointRecoveryPoints}, with {@code indexes}: also the index files of active segments that moved. */
    private synchronized void checkpoint(boolean indexes) throws IOException {
        // one pass over the logs: one created or deleted meanwhile is in both parts or in neither
        StringBuilder lines = new StringBuilder();
        Map<Log, LogPoint> points = new HashMap<>();
        for (Map.Entry<TopicPartition, Log> e : logs.entrySet()) {
            LogPoint durable = e.getValue().durability.durable();
            if (indexes && earlyCheckpoint.moved(e.getValue(), durable)) {
                EarlyCheckpoint.writeActiveIndexes(e.getValue());
            }
            lines.append(e.getKey().topic()).append(' ').append(e.getKey().partition()).append(' ')
                    .append(durable.offset()).append('\n');
            points.put(e.getValue(), durable);
        }
        StringBuilder sb = new StringBuilder("0\n").append(points.size()).append('\n').append(lines);
        DurableFiles.writeAtomically(dir.resolve(RECOVERY_POINT_FILE), sb.toString().getBytes(StandardCharsets.UTF_8));
        earlyCheckpoint.checkpointed(points);
    }

    /** A scheduled checkpoint, with index files; {@code early}: only if {@link EarlyCheckpoint#due}. */
    void scheduledCheckpoint(boolean early) {
        try {
            if (!early || earlyCheckpoint.due(logs.values())) {
                checkpoint(true);
            }
        } catch (IOException e) {
            LOG.warn("could not write the recovery-point checkpoint", e);
        }
    }

    private Map<String, Long> readRecoveryPoints() {
        Map<String, Long> out = new HashMap<>();
        Path f = dir.resolve(RECOVERY_POINT_FILE);
        if (!Files.exists(f)) {
            return out;
        }
        try {
            List<String> lines = Files.readAllLines(f, StandardCharsets.UTF_8);
            if (lines.size() < 2 || !lines.get(0).trim().equals("0")) {
                LOG.warn("ignoring {}: unknown version", f);
                return out;
            }
            for (String line : lines.subList(2, lines.size())) {
                String[] parts = line.trim().split(" ");
                if (parts.length == 3) {
                    out.put(parts[0] + "-" + Integer.parseInt(parts[1]), Long.parseLong(parts[2]));
                }
            }
        } catch (IOException | NumberFormatException e) {
            LOG.warn("ignoring unreadable {}; every log is scanned", f, e);
            out.clear();
        }
        return out;
    }

    private void shutdownThreads() {
        cleanerScheduler.close();
        scheduler.close();
        flusher.close();
        if (preallocator != null) {
            preallocator.close();
        }
    }

    private void releaseDirectory() {
        try {
            if (dirLock != null) {
                dirLock.release();
            }
            if (lockChannel != null) {
                lockChannel.close();
            }
        } catch (IOException e) {
            LOG.warn("could not release the lock of {}", dir, e);
        }
    }

    /**
     * Clean shutdown: stops the background threads, flushes and closes every log, writes the
     * recovery-point checkpoint and then the clean-shutdown marker.
     */
    @Override
    public void close() throws IOException {
        synchronized (createLock) {
            if (closed) {
                return;
            }
            closed = true;
        }
        shutdownThreads();
        IOException failure = null;
        boolean allClean = true;
        // Logs close in parallel ({@code num.recovery.threads.per.data.dir} threads, as Kafka
        // does at shutdown): each close forces only what changed, and independent fsyncs overlap.
        List<Log> all = List.copyOf(logs.values());
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(options.recoveryThreads, Math.max(1, all.size())),
                r -> {
                    Thread t = new Thread(r, "brook-log-close");
                    t.setDaemon(true);
                    return t;
                });
        try {
            List<Future<?>> futures = new ArrayList<>(all.size());
            for (Log log : all) {
                futures.add(pool.submit(() -> {
                    log.close();
                    return null;
                }));
            }
            for (int i = 0; i < all.size(); i++) {
                Log log = all.get(i);
                try {
                    futures.get(i).get();
                    allClean &= log.corruption() == null && log.durability.failure() == null;
                } catch (ExecutionException e) {
                    allClean = false;
                    LOG.error("could not close {}", log, e.getCause());
                    failure = e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    allClean = false;
                    failure = new IOException("interrupted while closing logs", e);
                    break;
                }
            }
        } finally {
            pool.shutdown();
        }
        checkpointRecoveryPoints();
        if (allClean && failure == null) {
            DurableFiles.writeAtomically(dir.resolve(CLEAN_SHUTDOWN_FILE), new byte[0]);
        }
        releaseDirectory();
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Simulated crash (tests, and the server's fault hooks): threads stop, nothing is flushed,
     * no checkpoint or marker is written, and the directory is released, so the next open
     * recovers as after a kill. What the page cache holds stays; a caller that wants it lost
     * cuts it off through {@link SegmentChannels}.
     */
    public void crash() throws IOException {
        closed = true;
        cleanerScheduler.close();
        scheduler.close();
        for (Log log : logs.values()) {
            log.closeAbruptly();
        }
        flusher.close();
        if (preallocator != null) {
            preallocator.close();
        }
        releaseDirectory();
    }
}
