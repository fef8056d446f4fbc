package io.brook.server.fault;

import io.brook.storage.SegmentChannels;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The disk of one broker's data directory, failing on demand: installed through storage's
 * {@link SegmentChannels} seam before the broker opens its logs, it hands out
 * {@link FaultChannel}s for every segment and index file below the directory. Metadata files
 * (topic registry, checkpoints, producer-id blocks), written atomically and forced at once, are
 * not affected.
 *
 * <p>The errors are the ones Linux gives, so storage reacts as to a real disk
 * ({@code docs/storage-faults.md}): a full disk fails a write that grows a file with "No space
 * left on device" (KAFKA_STORAGE_ERROR to producers, retriable, heals when space is back); a
 * failing disk fails fsync with "Input/output error" (the partition's log goes offline until a
 * restart: a failed fsync is never retried).
 *
 * <p>Crash: {@link #crash} makes every further write, truncation and force fail (the broker is
 * gone), and {@link #loseUnforced}, once the broker's threads are stopped, cuts each file at its
 * lowest write no completed force covered — what a power cut takes from the page cache.
 *
 * <p>Threading: any thread; the settings are volatile and the per-file records synchronized.
 */
public final class StorageFaults implements SegmentChannels.Interceptor {
    static final String ENOSPC = "No space left on device";
    static final String EIO = "Input/output error";

    private final Path dir;
    private final Map<Path, UnforcedWrites> files = new ConcurrentHashMap<>();
    private volatile boolean diskFull;
    private volatile boolean fsyncFails;
    private volatile long fsyncDelayNanos;
    private volatile boolean crashed;

    private StorageFaults(Path dir) {
        this.dir = dir.toAbsolutePath();
    }

    /** Segment and index files opened below {@code dataDir} from now on come through the returned faults. */
    public static StorageFaults install(Path dataDir) {
        StorageFaults f = new StorageFaults(dataDir);
        SegmentChannels.intercept(f.dir, f);
        return f;
    }

    public void uninstall() {
        SegmentChannels.stopIntercepting(dir);
    }

    @Override
    public FileChannel opened(Path file, FileChannel channel) {
        return new FaultChannel(channel, this, files.computeIfAbsent(file, k -> new UnforcedWrites()));
    }

    /** Writes that grow a file fail with ENOSPC while on. */
    public void diskFull(boolean full) {
        this.diskFull = full;
    }

    /** Forces fail with EIO while on. */
    public void failFsync(boolean fail) {
        this.fsyncFails = fail;
    }

    /** Each force waits {@code delay} first (zero: no wait). */
    public synchronized void slowFsync(Duration delay) {
        this.fsyncDelayNanos = Math.max(0, delay.toNanos());
        notifyAll();
    }

    /** Clears the full disk, the failing and the slow fsync. */
    public void healthy() {
        diskFull(false);
        failFsync(false);
        slowFsync(Duration.ZERO);
    }

    /** From now on nothing more reaches the files: every write, truncation and force fails. */
    public synchronized void crash() {
        crashed = true;
        notifyAll();
    }

    /**
     * Cuts every file at its lowest unforced write (the broker must be stopped), forgets what it
     * knew of the files and lets writes through again (for the next start).
     */
    public void loseUnforced() throws IOException {
        for (Map.Entry<Path, UnforcedWrites> e : files.entrySet()) {
            long from = e.getValue().lostFrom();
            Path file = e.getKey();
            if (from >= 0 && Files.exists(file)) {
                try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                    if (ch.size() > from) {
                        ch.truncate(from);
                        ch.force(true);
                    }
                }
            }
        }
        files.clear();
        crashed = false;
    }

    void checkAlive() throws IOException {
        if (crashed) {
            throw new IOException("the broker crashed");
        }
    }

    void checkSpace() throws IOException {
        if (diskFull) {
            throw new IOException(ENOSPC);
        }
    }

    void beforeForce() throws IOException {
        checkAlive();
        long delay = fsyncDelayNanos;
        if (delay > 0) {
            waitOut(delay);
            checkAlive();
        }
        if (fsyncFails) {
            throw new IOException(EIO);
        }
    }

    /** Waits {@code nanos}, or less when the delay is lifted or the broker crashes meanwhile. */
    private synchronized void waitOut(long nanos) throws IOException {
        long deadline = System.nanoTime() + nanos;
        try {
            long left;
            while (!crashed && fsyncDelayNanos > 0 && (left = deadline - System.nanoTime()) > 0) {
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while a slow fsync waited", e);
        }
    }
}
