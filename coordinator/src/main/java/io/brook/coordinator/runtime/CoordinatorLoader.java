package io.brook.coordinator.runtime;

import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

import io.brook.storage.ProgressLog;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads a coordinator's state from the partitions of its internal topic in the background, while
 * the coordinator (and the broker) already serve: Kafka's coordinator loading. Each partition is
 * {@link State#LOADING} until its last record has been applied, then {@link State#ACTIVE}; a
 * coordinator answers requests that touch a loading partition with COORDINATOR_LOAD_IN_PROGRESS
 * (retriable) and must not act on its state (timers, expiry) before it is active. A partition
 * that cannot be read is {@link State#FAILED} until a restart (Kafka answers NOT_COORDINATOR for
 * it); the others load on. Nothing a partition holds stops a start.
 *
 * <p><b>Threads.</b> Reads ({@link CoordinatorLog#read}) run on the loader's executor (by default
 * a daemon thread of its own); each chunk read is handed to the coordinator's {@link EventLoop},
 * where {@link Target#replay} applies its records, and only then is the next chunk read. So the
 * coordinator's state stays confined to its owner thread, requests for loaded partitions are
 * answered between two chunks, and memory is bounded by one chunk (about {@code chunkBytes} of
 * log read, plus its records) whatever the partition holds. Partitions load one after another in
 * partition order. {@link #state}, {@link Target} and the completion of {@link #loaded()} belong
 * to the owner thread.
 *
 * <p><b>Why nothing is answered from a partial load.</b> While a partition loads, its coordinator
 * refuses every request for it, so no write of the coordinator's own can interleave with the
 * records being replayed and no answer can come from half of them; the end of the load is the
 * high watermark the last read found (see {@link CoordinatorLog#read}).
 *
 * <p><b>Reuse.</b> A coordinator builds one over its {@code CoordinatorLog}, its {@code EventLoop}
 * and a {@link Target} (apply a record; a partition is done; a partition failed), calls
 * {@link #start()} once its loop runs, checks {@link #state} at the start of each request, and
 * {@link #close()}s it before it stops its loop.
 */
public final class CoordinatorLoader implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(CoordinatorLoader.class);

    /** The size of one read: Kafka's {@code offsets.load.buffer.size} plays this part (5 MiB there). */
    public static final int DEFAULT_CHUNK_BYTES = 1 << 20;

    private static final long CLOSE_WAIT_MS = 5_000;

    /** Where a partition's load stands. */
    public enum State {
        /** Records are still being read and applied: requests for it get COORDINATOR_LOAD_IN_PROGRESS. */
        LOADING,
        /** Everything up to the end found at load time is applied. */
        ACTIVE,
        /** The log could not be read (or a record not applied): unusable until a restart. */
        FAILED
    }

    /** What the coordinator does with what is loaded; every method runs on the owner thread. */
    public interface Target {
        /** Applies one record of a loading partition. */
        void replay(CoordinatorRecord record);

        /** Every record of {@code partition} was applied: arm what its state needs (timers). */
        void loaded(int partition);

        /**
         * {@code partition} could not be loaded: forget what of it was applied. It stays
         * {@link State#FAILED}.
         */
        void failed(int partition, Throwable cause);
    }

    private final String topic;
    private final CoordinatorLog log;
    private final EventLoop loop;
    private final Target target;
    private final int chunkBytes;
    private final Executor executor;
    /** Null when the executor was given, not created here. */
    private final ExecutorService ownExecutor;
    /** Owner thread only. */
    private final State[] states;
    private final CompletableFuture<Void> loaded = new CompletableFuture<>();
    /** Held while a chunk is read, so that {@link #close} returns only once no read is under way. */
    private final ReentrantLock reading = new ReentrantLock();
    private volatile boolean closed;
    private long startNanos;
    private LongSupplier nanoTime = System::nanoTime;
    private Consumer<String> progressLines = LOG::info;
    /** Owner thread; from {@link #start()}. */
    private ProgressLog progress;
    private long records;
    private int failures;

    /**
     * @param topic      the internal topic (for log lines)
     * @param partitions its number of partitions; all start {@link State#LOADING}
     * @param executor   runs the reads; null for a daemon thread of its own named
     *                   {@code <threadName>}; an executor that runs tasks on the calling thread
     *                   loads inside {@link EventLoop#runPending} (tests)
     */
    public CoordinatorLoader(String topic, int partitions, CoordinatorLog log, EventLoop loop, Target target,
                             int chunkBytes, Executor executor, String threadName) {
        if (partitions < 1) throw new IllegalArgumentException("partitions < 1");
        if (chunkBytes < 1) throw new IllegalArgumentException("chunkBytes < 1");
        this.topic = topic;
        this.log = log;
        this.loop = loop;
        this.target = target;
        this.chunkBytes = chunkBytes;
        this.states = new State[partitions];
        Arrays.fill(states, State.LOADING);
        if (executor == null) {
            this.ownExecutor = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, threadName);
                t.setDaemon(true);
                return t;
            });
            this.executor = ownExecutor;
        } else {
            this.ownExecutor = null;
            this.executor = executor;
        }
    }

    /**
     * Where the progress lines of a long load go (partitions done, records, rate; at most one
     * every {@value ProgressLog#DEFAULT_INTERVAL_MS} ms, see {@link ProgressLog}) and the time they
     * are measured with; the log and {@code System::nanoTime} unless set. Before {@link #start()}.
     */
    public void progress(LongSupplier nanoTime, Consumer<String> lines) {
        this.nanoTime = nanoTime;
        this.progressLines = lines;
    }

    /** Starts loading partition 0, then the others in turn. Call once. */
    public void start() {
        startNanos = System.nanoTime();
        progress = new ProgressLog("Loading " + topic, "Loaded " + topic, "partitions", states.length,
                ProgressLog.Unit.RECORDS, nanoTime, ProgressLog.DEFAULT_INTERVAL_MS, progressLines);
        submitRead(0, 0);
    }

    /** Owner thread: where {@code partition}'s load stands. */
    public State state(int partition) {
        return states[partition];
    }

    /** Owner thread: true when some partition is still loading. */
    public boolean anyLoading() {
        for (State s : states) {
            if (s == State.LOADING) return true;
        }
        return false;
    }

    /** Completes (on the owner thread) once no partition is loading any more. */
    public CompletableFuture<Void> loaded() {
        return loaded;
    }

    private void submitRead(int partition, long offset) {
        if (closed) return;
        try {
            executor.execute(() -> read(partition, offset));
        } catch (RejectedExecutionException e) {
            if (!closed) throw e;
        }
    }

    /** On the executor: reads one chunk and hands it to the owner thread. */
    private void read(int partition, long offset) {
        ReplayChunk chunk = null;
        Throwable failure = null;
        reading.lock();
        try {
            if (closed) return;
            chunk = log.read(partition, offset, chunkBytes);
        } catch (RuntimeException e) {
            failure = e;
        } finally {
            reading.unlock();
        }
        ReplayChunk read = chunk;
        Throwable failed = failure;
        loop.execute(() -> {
            if (closed) return;
            if (failed != null) {
                fail(partition, failed);
            } else {
                apply(partition, offset, read);
            }
        });
    }

    /** Owner thread. */
    private void apply(int partition, long offset, ReplayChunk chunk) {
        try {
            for (CoordinatorRecord r : chunk.records()) target.replay(r);
        } catch (RuntimeException e) {
            fail(partition, e);
            return;
        }
        records += chunk.records().size();
        if (!chunk.end() && chunk.nextOffset() > offset) {
            progress.advance(0, chunk.records().size());
            submitRead(partition, chunk.nextOffset());
            return;
        }
        progress.advance(1, chunk.records().size());
        states[partition] = State.ACTIVE;
        try {
            target.loaded(partition);
        } catch (RuntimeException e) {
            fail(partition, e);
            return;
        }
        next(partition);
    }

    /** Owner thread. */
    private void fail(int partition, Throwable cause) {
        if (states[partition] == State.LOADING) {
            progress.advance(1, 0);
        }
        states[partition] = State.FAILED;
        failures++;
        LOG.error("Cannot load {}-{}: requests for its part of the state are refused until a restart", topic, partition, cause);
        try {
            target.failed(partition, cause);
        } finally {
            next(partition);
        }
    }

    /** Owner thread: the next partition, or the end. */
    private void next(int partition) {
        if (partition + 1 < states.length) {
            submitRead(partition + 1, 0);
            return;
        }
        LOG.info("Loaded {} ({} partitions, {} records{}) in {} ms", topic, states.length, records,
                failures == 0 ? "" : ", " + failures + " partitions failed",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
        loaded.complete(null);
    }

    /**
     * Stops loading: no chunk is applied any more, and no read starts. A read under way is waited
     * for up to {@value #CLOSE_WAIT_MS} ms (it is one chunk from the page cache or the disk);
     * one that takes longer is left to fail against the closing log, and its chunk is dropped.
     * Partitions still loading stay so. Any thread.
     */
    @Override
    public void close() {
        closed = true;
        try {
            if (reading.tryLock(CLOSE_WAIT_MS, TimeUnit.MILLISECONDS)) {
                reading.unlock();
            } else {
                LOG.warn("A read of {} still runs after {} ms; closing without waiting for it", topic, CLOSE_WAIT_MS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (ownExecutor != null) {
            ownExecutor.shutdownNow();
        }
    }
}
