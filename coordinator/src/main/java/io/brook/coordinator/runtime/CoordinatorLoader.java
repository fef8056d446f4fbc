package io.brook.coordinator.runtime;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Set;
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
import io.brook.wire.protocol.Errors;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads a coordinator's state from the partitions of its internal topic in the background, while
 * the coordinator (and the broker) already serve: Kafka's coordinator loading. Each partition this
 * node owns is {@link State#LOADING} until its last record has been applied, then
 * {@link State#ACTIVE}; a coordinator answers requests that touch a loading partition with
 * COORDINATOR_LOAD_IN_PROGRESS (retriable) and must not act on its state (timers, expiry) before
 * it is active. A partition that cannot be read is {@link State#FAILED} until it is lost and
 * gained again, or a restart (Kafka answers NOT_COORDINATOR for it); the others load on. Nothing
 * a partition holds stops a start.
 *
 * <p><b>Ownership.</b> A single node owns every partition from the start. In a cluster a node owns
 * the partitions it leads, and {@link #own} follows the leadership: a partition gained is queued
 * for loading, a partition lost is {@link State#NOT_OWNED} at once (requests for it get
 * NOT_COORDINATOR) and {@link Target#unloaded} drops its state, whether it was loaded, loading or
 * failed. Every gain and loss moves the partition's {@link #epoch}, so that a chunk read for an
 * earlier ownership is dropped and a {@link DurableWriter} fails the writes that were in flight
 * when the partition was lost.
 *
 * <p><b>Threads.</b> Reads ({@link CoordinatorLog#read}) run on the loader's executor (by default
 * a daemon thread of its own); each chunk read is handed to the coordinator's {@link EventLoop},
 * where {@link Target#replay} applies its records, and only then is the next chunk read. So the
 * coordinator's state stays confined to its owner thread, requests for loaded partitions are
 * answered between two chunks, and memory is bounded by one chunk (about {@code chunkBytes} of
 * log read, plus its records) whatever the partition holds. Partitions load one after another in
 * partition order (later gains after them, in the order gained). {@link #state}, {@link #epoch},
 * {@link #own}, {@link Target} and the completion of {@link #loaded()} belong to the owner thread;
 * {@link #loadingNow()} may be read from any thread.
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
        /** This node does not own the partition (another node leads it): requests get NOT_COORDINATOR. */
        NOT_OWNED,
        /** Records are still being read and applied: requests for it get COORDINATOR_LOAD_IN_PROGRESS. */
        LOADING,
        /** Everything up to the end found at load time is applied. */
        ACTIVE,
        /** The log could not be read (or a record not applied): unusable until it is owned anew or a restart. */
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

        /**
         * {@code partition} is no longer owned here: forget its state (also a partial one, when it
         * was still loading), cancel its timers and answer what waits on it with NOT_COORDINATOR.
         */
        void unloaded(int partition);
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
    /** Owner thread only: moved on at every gain and loss of the partition. */
    private final long[] epochs;
    /** Owner thread only: partitions gained and not yet loading, in the order gained. */
    private final ArrayDeque<Integer> queue = new ArrayDeque<>();
    /** Owner thread only: the partitions of the first load (owned at {@link #start()}), for the progress lines. */
    private final boolean[] firstRound;
    /** Owner thread only: the partition being read, or -1. */
    private int current = -1;
    private long currentStartNanos;
    private long currentRecords;
    private boolean started;
    private volatile boolean loadingNow = true;
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
        this.epochs = new long[partitions];
        this.firstRound = new boolean[partitions];
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

    /**
     * Starts loading the partitions owned (all of them unless {@link #own} said otherwise before),
     * partition 0 first, then the others in turn, on the owner thread. Call once.
     */
    public void start() {
        startNanos = System.nanoTime();
        loop.execute(() -> {
            int total = 0;
            for (int p = 0; p < states.length; p++) {
                if (states[p] == State.LOADING) {
                    firstRound[p] = true;
                    queue.add(p);
                    total++;
                }
            }
            progress = new ProgressLog("Loading " + topic, "Loaded " + topic, "partitions", total,
                    ProgressLog.Unit.RECORDS, nanoTime, ProgressLog.DEFAULT_INTERVAL_MS, progressLines);
            started = true;
            next();
        });
    }

    /**
     * Owns exactly {@code owned} from now on: partitions gained are queued for loading, partitions
     * lost are dropped at once ({@link Target#unloaded}). Before {@link #start()} (on the thread that
     * builds the coordinator) it only sets which partitions the start loads; after it, owner thread.
     * Partitions outside the topic are ignored.
     */
    public void own(Set<Integer> owned) {
        boolean currentLost = false;
        for (int p = 0; p < states.length; p++) {
            boolean own = owned.contains(p);
            if (own && states[p] == State.NOT_OWNED) {
                states[p] = State.LOADING;
                epochs[p]++;
                if (started) queue.add(p);
            } else if (!own && states[p] != State.NOT_OWNED) {
                boolean wasFirst = firstRound[p] && states[p] == State.LOADING && started;
                states[p] = State.NOT_OWNED;
                epochs[p]++;
                if (!started) continue;
                queue.remove(p);
                if (p == current) {
                    current = -1;
                    currentLost = true;
                }
                if (wasFirst) progress.advance(1, 0);
                firstRound[p] = false;
                LOG.info("{}-{} is no longer owned here: its state is dropped", topic, p);
                target.unloaded(p);
            }
        }
        if (started && (currentLost || current < 0)) next();
        loadingNow = current >= 0 || !queue.isEmpty() || (!started && anyLoading());
    }

    /** Owner thread: where {@code partition}'s load stands. */
    public State state(int partition) {
        return states[partition];
    }

    /**
     * Owner thread: Kafka's answer to a request that touches {@code partition}: NONE when it is
     * active, COORDINATOR_LOAD_IN_PROGRESS while it loads, NOT_COORDINATOR when this node does not
     * own it or its load failed.
     */
    public Errors loadError(int partition) {
        return switch (states[partition]) {
            case ACTIVE -> Errors.NONE;
            case LOADING -> Errors.COORDINATOR_LOAD_IN_PROGRESS;
            case FAILED, NOT_OWNED -> Errors.NOT_COORDINATOR;
        };
    }

    /**
     * Owner thread: the ownership epoch of {@code partition}, moved on at every gain and loss; a
     * write that started under one epoch and completes under another was made by an ownership that
     * has ended.
     */
    public long epoch(int partition) {
        return epochs[partition];
    }

    /** Owner thread: true when some partition is still loading. */
    public boolean anyLoading() {
        for (State s : states) {
            if (s == State.LOADING) return true;
        }
        return false;
    }

    /** Any thread: whether some owned partition is loading or waiting to load, as of the last change. */
    public boolean loadingNow() {
        return loadingNow;
    }

    /**
     * Completes (on the owner thread) once no partition of those owned at {@link #start()} (and
     * gained while they loaded) is loading any more.
     */
    public CompletableFuture<Void> loaded() {
        return loaded;
    }

    private void submitRead(int partition, long epoch, long offset) {
        if (closed) return;
        try {
            executor.execute(() -> read(partition, epoch, offset));
        } catch (RejectedExecutionException e) {
            if (!closed) throw e;
        }
    }

    /** On the executor: reads one chunk and hands it to the owner thread. */
    private void read(int partition, long epoch, long offset) {
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
            // a chunk of a partition lost (and maybe gained again) since it was asked for is dropped
            if (closed || epochs[partition] != epoch || current != partition) return;
            if (failed != null) {
                fail(partition, failed);
            } else {
                apply(partition, epoch, offset, read);
            }
        });
    }

    /** Owner thread. */
    private void apply(int partition, long epoch, long offset, ReplayChunk chunk) {
        try {
            for (CoordinatorRecord r : chunk.records()) target.replay(r);
        } catch (RuntimeException e) {
            fail(partition, e);
            return;
        }
        records += chunk.records().size();
        currentRecords += chunk.records().size();
        if (!chunk.end() && chunk.nextOffset() > offset) {
            if (firstRound[partition]) progress.advance(0, chunk.records().size());
            submitRead(partition, epoch, chunk.nextOffset());
            return;
        }
        if (firstRound[partition]) {
            progress.advance(1, chunk.records().size());
        } else {
            LOG.info("Loaded {}-{} ({} records) in {} ms", topic, partition, currentRecords,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - currentStartNanos));
        }
        firstRound[partition] = false;
        states[partition] = State.ACTIVE;
        current = -1;
        try {
            target.loaded(partition);
        } catch (RuntimeException e) {
            fail(partition, e);
            return;
        }
        next();
    }

    /** Owner thread. */
    private void fail(int partition, Throwable cause) {
        if (firstRound[partition]) {
            progress.advance(1, 0);
            firstRound[partition] = false;
        }
        states[partition] = State.FAILED;
        current = -1;
        failures++;
        LOG.error("Cannot load {}-{}: requests for its part of the state are refused until it is owned anew or a restart",
                topic, partition, cause);
        try {
            target.failed(partition, cause);
        } finally {
            next();
        }
    }

    /** Owner thread: starts the next partition queued, unless one is being read; or notes the end. */
    private void next() {
        if (current < 0 && !queue.isEmpty()) {
            current = queue.poll();
            currentStartNanos = System.nanoTime();
            currentRecords = 0;
            loadingNow = true;
            submitRead(current, epochs[current], 0);
            return;
        }
        if (current >= 0) return;
        loadingNow = false;
        if (!loaded.isDone()) {
            LOG.info("Loaded {} ({} partitions, {} records{}) in {} ms", topic, ownedCount(), records,
                    failures == 0 ? "" : ", " + failures + " partitions failed",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
            loaded.complete(null);
        }
    }

    private int ownedCount() {
        int n = 0;
        for (State s : states) {
            if (s != State.NOT_OWNED) n++;
        }
        return n;
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
