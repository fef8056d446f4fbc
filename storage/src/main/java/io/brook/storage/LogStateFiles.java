package io.brook.storage;

import io.brook.storage.file.DurableFiles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * The small files beside a log's segments that record its state: {@code log-start-offset}
 * (moved by DeleteRecords, retention and truncation), the producer-state snapshots (taken at
 * rolls and at a clean close) and the aborted-transaction index. They change in memory under
 * the log's append lock; this class writes them durably ({@link DurableFiles}) after that lock
 * is released, so that no fsync ever holds up an append.
 *
 * <p>Order: {@link #persist} runs under {@link #writeLock}, one writer at a time, and always
 * writes the newest state, so a later log start offset is never overwritten by an earlier one;
 * snapshots are written in the order they were taken. Before a snapshot at offset S is written
 * the transaction index is brought up to date and forced: at load its entries below S are
 * trusted, not rebuilt from the log.
 *
 * <p>Failures: a snapshot that cannot be written is logged and dropped (the log is replayed from
 * an older one at the next load, as after a crash); a failed write of the log start offset or of
 * the transaction index propagates, and the caller takes the log offline as for any I/O error.
 *
 * <p>Threading: the setters run under the append lock and only record what is to be written;
 * whoever changed the state calls {@link #persist} after releasing the append lock, except the
 * append path, which leaves a roll's snapshot to the scheduler's thread
 * ({@link #persistSnapshotsLater}). Lock order:
 * {@link #writeLock}, then the log's flush lock, then its append lock (truncation and close hold
 * all three, so no write of this class lands between their changes).
 */
final class LogStateFiles {
    private static final Logger LOG = LoggerFactory.getLogger(LogStateFiles.class);
    static final String LOG_START_OFFSET_FILE = "log-start-offset";
    /** How many producer snapshots are kept on disk. */
    private static final int KEPT_SNAPSHOTS = 3;

    private final Path dir;
    private final String name;
    private final ProducerStateManager producers;
    private final TransactionIndex txnIndex;
    private final Scheduler scheduler;
    /** Held while writing; see the class comment for the lock order. */
    final ReentrantLock writeLock = new ReentrantLock();

    private record Snapshot(long offset, byte[] content) {
    }

    // Guarded by this object's monitor, which is held only to hand values over, never during I/O.
    private long logStartOffset = -1L;
    private final ArrayDeque<Snapshot> snapshots = new ArrayDeque<>();
    // Under writeLock.
    private long writtenLogStartOffset = -1L;
    private boolean closed;
    /** Test seam: runs on the writing thread before each durable write, with the file written. */
    volatile Consumer<Path> beforeWrite;

    /** @param name the log's name for messages ({@code topic-partition}) */
    /** @param scheduler the thread that writes the snapshots rolls take */
    LogStateFiles(Path dir, String name, ProducerStateManager producers, TransactionIndex txnIndex,
            Scheduler scheduler) {
        this.dir = dir;
        this.name = name;
        this.producers = producers;
        this.txnIndex = txnIndex;
        this.scheduler = scheduler;
    }

    /** The log start offset persisted by DeleteRecords, retention or truncation, -1 if none. */
    static long readLogStartOffset(Path dir, String name) throws IOException {
        Path f = dir.resolve(LOG_START_OFFSET_FILE);
        if (!Files.exists(f)) {
            return -1L;
        }
        try {
            return Long.parseLong(Files.readString(f, StandardCharsets.UTF_8).trim());
        } catch (NumberFormatException e) {
            LOG.warn("{}: unreadable {}, using the first segment's base offset", name, f);
            return -1L;
        }
    }

    /** At open: the log start offset the log begins with, which needs no write. */
    synchronized void opened(long start) {
        logStartOffset = start;
        writtenLogStartOffset = start;
    }

    /** Under the append lock: the log start offset moved to {@code offset}. */
    synchronized void logStartOffsetChanged(long offset) {
        logStartOffset = offset;
    }

    /** Under the append lock: the producer state as of {@code offset}, serialised. */
    synchronized void snapshotTaken(long offset, byte[] content) {
        snapshots.add(new Snapshot(offset, content));
    }

    /** Under the append lock (truncation, holding {@link #writeLock}): forgets snapshots above the new end. */
    synchronized void discardSnapshotsAbove(long offset) {
        snapshots.removeIf(s -> s.offset() > offset);
    }

    private synchronized Snapshot nextSnapshot() {
        return snapshots.poll();
    }

    private synchronized boolean snapshotsPending() {
        return !snapshots.isEmpty();
    }

    /** Writes everything changed so far. Never under the append lock. */
    void persist() throws IOException {
        writeLock.lock();
        try {
            if (closed) {
                return;
            }
            writeSnapshots();
            long start;
            synchronized (this) {
                start = logStartOffset;
            }
            if (start != writtenLogStartOffset) {
                Path file = dir.resolve(LOG_START_OFFSET_FILE);
                runBeforeWrite(file);
                DurableFiles.writeAtomically(file, (start + "\n").getBytes(StandardCharsets.UTF_8));
                writtenLogStartOffset = start;
            }
            txnIndex.persist();
        } finally {
            writeLock.unlock();
        }
    }

    /**
     * After a roll on the append path: the snapshots taken so far are written on the scheduler's
     * thread, so that the appending thread never waits for a disk or for this class's lock.
     */
    void persistSnapshotsLater() {
        scheduler.execute(this::persistSnapshots);
    }

    /** Writes the snapshots taken so far; failures are logged. */
    private void persistSnapshots() {
        writeLock.lock();
        try {
            if (!closed) {
                writeSnapshots();
            }
        } catch (IOException e) {
            LOG.warn("{}: the aborted-transaction index could not be written; producer snapshots wait", name, e);
        } finally {
            writeLock.unlock();
        }
    }

    private void writeSnapshots() throws IOException {
        while (snapshotsPending()) {
            // The aborted transactions below the snapshot must be on disk before it is.
            txnIndex.persist();
            txnIndex.force();
            Snapshot s = nextSnapshot();
            if (s == null) {
                return;
            }
            try {
                runBeforeWrite(ProducerStateManager.snapshotFile(dir, s.offset()));
                ProducerStateManager.writeSnapshot(dir, s.offset(), s.content());
                producers.retainNewest(KEPT_SNAPSHOTS);
            } catch (IOException e) {
                LOG.warn("{}: could not write the producer snapshot at {}", name, s.offset(), e);
            }
        }
    }

    private void runBeforeWrite(Path file) {
        Consumer<Path> hook = beforeWrite;
        if (hook != null) {
            hook.accept(file);
        }
    }

    /**
     * Clean close, holding {@link #writeLock}: writes what is pending and the final snapshot
     * (null for none) at {@code logEndOffset} (forcing the transaction index before it), and
     * makes later writes no-ops.
     */
    void close(long logEndOffset, byte[] finalSnapshot) throws IOException {
        persist();
        if (finalSnapshot != null) {
            snapshotTaken(logEndOffset, finalSnapshot);
            writeSnapshots();
        }
        discard();
    }

    /** The log closed (cleanly or not): nothing more is written. */
    void discard() {
        writeLock.lock();
        try {
            closed = true;
            synchronized (this) {
                snapshots.clear();
            }
        } finally {
            writeLock.unlock();
        }
    }
}
