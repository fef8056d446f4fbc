package io.brook.coordinator.txn;

import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import io.brook.coordinator.runtime.CoordinatorLoader;
import io.brook.coordinator.runtime.CoordinatorLog;
import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.CoordinatorRequests;
import io.brook.coordinator.runtime.DurableWriter;
import io.brook.coordinator.runtime.EventLoop;
import io.brook.wire.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transaction coordinator of a node: every transactional id (of the partitions it owns), its producer id and epoch
 * and its open transaction, kept in {@code __transaction_state} through a {@link CoordinatorLog}
 * in Kafka's record layout ({@link TxnLogRecords}), with the state machine of {@link Transactions}.
 *
 * <p><b>Use.</b> Construct, {@link #start()} (starts the coordinator thread and the loading of
 * {@code __transaction_state} in the background), one method per API from any thread,
 * {@link #close()} at shutdown.
 *
 * <p><b>Loading.</b> As Kafka's, the coordinator serves while it loads: a {@link CoordinatorLoader}
 * reads the partitions of {@code __transaction_state} one after another, and a request for a
 * transactional id whose partition still loads gets COORDINATOR_LOAD_IN_PROGRESS (retriable; in
 * InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn, EndTxn and per id in
 * DescribeTransactions, as in Kafka), NOT_COORDINATOR once its load failed. Once a partition is
 * loaded, the transactions found prepared in it are completed. In a cluster the coordinator
 * serves only the partitions this node leads ({@link #own}); ids of the others get NOT_COORDINATOR.
 * {@link #loading()} tells the
 * verification of transactional writes that an unknown producer may be one not loaded yet.
 *
 * <p><b>Threading.</b> As the group coordinator: each call is handed to the one owner thread of
 * an {@link EventLoop}; returned futures complete there (or, for writes, once the record is
 * durable). {@link #inOngoingTransaction} reads a concurrent view and may be called from any
 * thread without a hand-over.
 *
 * <p><b>Errors.</b> Expected failures are Kafka's error codes in the results. An unexpected
 * exception gives UNKNOWN_SERVER_ERROR; a call after {@link #close()} gives NOT_COORDINATOR.
 */
public final class TransactionCoordinator implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionCoordinator.class);

    /**
     * The highest level of the {@code transaction.version} feature (KIP-890) this coordinator
     * implements, for the ApiVersions response's supported features: 2, transactions V2 (the
     * partition leader adds a partition to the transaction when a Produce v12+ or TxnOffsetCommit
     * v5+ of it arrives, EndTxn v5+ bumps the epoch at the end of every transaction). Level 1
     * writes {@code __transaction_state} values in their flexible version 1; level 0 is classic
     * transactions with version 0 values. Clients of every level are served whatever the
     * finalized level: Java clients run V2 only when it is finalized at 2, and say so with the
     * request versions they send.
     */
    public static final short TRANSACTION_VERSION = 2;

    /** {@code transaction.version} of a client running transactions V2. */
    public static final short CLIENT_VERSION_V2 = TxnSnapshot.TV2;


    private final TxnCoordinatorConfig config;
    private final TxnMarkers markers;
    private final CoordinatorLoader loader;
    private final EventLoop loop;
    private final Transactions txns;
    private final OpenTransactions open = new OpenTransactions();
    private final boolean threaded;
    private final CoordinatorRequests requests =
            new CoordinatorRequests("transaction coordinator", () -> this.closed, () -> this.shutdown);
    private int replaySkipped;
    private volatile boolean started;
    private volatile boolean closed;
    private boolean shutdown;

    /**
     * @param producerIds hands out new producer ids (called on the coordinator thread; it throws
     *                    {@link ProducerIdsPending} rather than wait when it has none at hand: the
     *                    request is then run again once the ids are there)
     * @param markers     writes the markers that end transactions
     */
    public TransactionCoordinator(TxnCoordinatorConfig config, CoordinatorLog log, Clock clock, LongSupplier producerIds,
                                  TxnMarkers markers) {
        this(config, log, clock, producerIds, markers, null);
    }

    /**
     * @param loadExecutor runs the reads of {@code __transaction_state} at start-up; null for a
     *                     thread of the coordinator's own ({@code txn-coordinator-loader})
     */
    public TransactionCoordinator(TxnCoordinatorConfig config, CoordinatorLog log, Clock clock, LongSupplier producerIds,
                                  TxnMarkers markers, Executor loadExecutor) {
        this(config, log, clock, producerIds, markers, true, loadExecutor, CoordinatorLoader.DEFAULT_CHUNK_BYTES);
    }

    /**
     * With {@code threaded = false} no thread is started; tests drive the loop with
     * {@link #runPending()}, and the log is read on the test thread too, so that {@link #start()}
     * returns loaded.
     */
    TransactionCoordinator(TxnCoordinatorConfig config, CoordinatorLog log, Clock clock, LongSupplier producerIds,
                           TxnMarkers markers, boolean threaded) {
        this(config, log, clock, producerIds, markers, threaded, threaded ? null : Runnable::run,
                CoordinatorLoader.DEFAULT_CHUNK_BYTES);
    }

    /** Tests: the loading's reads run on {@code loadExecutor} (null: a thread of its own), {@code chunkBytes} at a time. */
    TransactionCoordinator(TxnCoordinatorConfig config, CoordinatorLog log, Clock clock, LongSupplier producerIds,
                           TxnMarkers markers, boolean threaded, Executor loadExecutor, int chunkBytes) {
        this.config = config;
        this.markers = markers;
        this.threaded = threaded;
        this.loop = new EventLoop(clock, e -> requests.failed("task", e));
        requests.runOn(loop);
        this.txns = new Transactions(config, loop, new DurableWriter(loop, log, this::ownershipEpoch), producerIds,
                markers, open);
        this.loader = new CoordinatorLoader(TxnCoordinatorConfig.TOPIC, config.partitions(), log, loop,
                new CoordinatorLoader.Target() {
                    @Override
                    public void replay(CoordinatorRecord record) {
                        if (record.isMarker()) return;
                        try {
                            txns.replay(record);
                        } catch (IllegalArgumentException e) {
                            replaySkipped++;
                        }
                    }

                    @Override
                    public void loaded(int partition) {
                        txns.loaded(partition);
                    }

                    @Override
                    public void failed(int partition, Throwable cause) {
                        txns.failed(partition);
                    }

                    @Override
                    public void unloaded(int partition) {
                        txns.unloaded(partition);
                    }
                }, chunkBytes, loadExecutor, "txn-coordinator-loader");
    }

    /**
     * Starts serving, and loading {@code __transaction_state} in the background (see the class
     * comment). Call once.
     */
    public synchronized void start() {
        if (started) throw new IllegalStateException("already started");
        loader.loaded().thenRun(() -> {
            if (replaySkipped > 0) {
                LOG.warn("{}: skipped {} unreadable records while loading", TxnCoordinatorConfig.TOPIC, replaySkipped);
            }
        });
        started = true;
        loop.execute(() -> txns.start(p -> loader.state(p) == CoordinatorLoader.State.ACTIVE));
        if (threaded) loop.start("txn-coordinator");
        loader.start();
        if (!threaded) loop.runPending();
    }

    /**
     * Completes once no partition of {@code __transaction_state} is loading any more (each is
     * loaded, or failed); on the coordinator thread, so a dependent action must not block.
     */
    public CompletableFuture<Void> loaded() {
        return loader.loaded();
    }

    /** Whether some partition of {@code __transaction_state} this node owns is still loading. Any thread. */
    public boolean loading() {
        return loader.loadingNow();
    }

    /**
     * This node coordinates the transactional ids of exactly these partitions of
     * {@code __transaction_state} from now on (all of them until called): partitions gained are
     * loaded, partitions lost are dropped at once (their ids get NOT_COORDINATOR, their writes in
     * flight fail, their markers are no longer retried here; the new coordinator completes what
     * was prepared when it loads them). Before {@link #start()} it sets what the start loads. Any
     * thread.
     */
    public synchronized void own(Set<Integer> partitions) {
        Set<Integer> owned = Set.copyOf(partitions);
        if (!started) {
            loader.own(owned);
            return;
        }
        if (closed) return;
        loop.execute(() -> {
            if (!shutdown) loader.own(owned);
        });
    }

    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        if (!started) return;
        loader.close();
        loop.execute(() -> {
            shutdown = true;
            txns.close();
        });
        if (threaded) {
            try {
                loop.stop();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        } else {
            loop.runPending();
        }
    }

    /** The writer's view of {@link CoordinatorLoader#epoch} (the loader is built after the writer). */
    private long ownershipEpoch(int partition) {
        return loader.epoch(partition);
    }

    /**
     * Sets the finalized {@code transaction.version} (0 to {@link #TRANSACTION_VERSION}): from
     * level 1 on, {@code __transaction_state} values are written in version 1. Any thread.
     */
    public void transactionVersion(short level) {
        if (level < 0 || level > TRANSACTION_VERSION) throw new IllegalArgumentException("transaction.version " + level);
        txns.transactionVersion(level);
    }

    /** The settings in force. */
    public TxnCoordinatorConfig config() {
        return config;
    }

    /** What writes this coordinator's markers (as given to the constructor). */
    public TxnMarkers markers() {
        return markers;
    }

    /**
     * InitProducerId with a transactional id.
     *
     * @param expectedPid   the producer id the client has (KIP-360), or -1
     * @param expectedEpoch its epoch, or -1
     */
    public CompletableFuture<InitPidResult> initProducerId(String transactionalId, int timeoutMs, long expectedPid,
                                                           short expectedEpoch) {
        return requests.submit(() -> loadError(transactionalId),
                () -> txns.initProducerId(transactionalId, timeoutMs, expectedPid, expectedEpoch), InitPidResult::failed);
    }

    /** AddPartitionsToTxn (and AddOffsetsToTxn, with the group's {@code __consumer_offsets} partition). */
    public CompletableFuture<Errors> addPartitions(String transactionalId, long producerId, short epoch,
                                                   Map<String, ? extends Set<Integer>> partitions) {
        return addPartitions(transactionalId, producerId, epoch, partitions, (short) 0);
    }

    /**
     * Adds partitions for a client of transaction version {@code clientVersion}: 2
     * ({@link #CLIENT_VERSION_V2}) for the implicit addition of transactions V2, by the partition
     * side of a Produce v12+ or a TxnOffsetCommit v5+ (Kafka's AddPartitionsToTxn v5 call from a
     * partition leader); the transaction then ends V2 style.
     */
    public CompletableFuture<Errors> addPartitions(String transactionalId, long producerId, short epoch,
                                                   Map<String, ? extends Set<Integer>> partitions, short clientVersion) {
        return requests.submit(() -> loadError(transactionalId),
                () -> txns.addPartitions(transactionalId, producerId, epoch, partitions, clientVersion), e -> e);
    }

    /**
     * AddPartitionsToTxn with {@code verify_only}: NONE for each partition in the ongoing
     * transaction, INVALID_TXN_STATE for the others, or one error for all of them.
     */
    public CompletableFuture<Map<String, Map<Integer, Errors>>> verifyPartitions(String transactionalId, long producerId,
                                                                                  short epoch,
                                                                                  Map<String, ? extends Set<Integer>> partitions) {
        return requests.submit(() -> loadError(transactionalId), () -> {
            Errors all = txns.verify(transactionalId, producerId, epoch);
            Map<String, Map<Integer, Errors>> out = new LinkedHashMap<>();
            partitions.forEach((t, ps) -> {
                Map<Integer, Errors> m = out.computeIfAbsent(t, x -> new LinkedHashMap<>());
                for (int p : ps) {
                    m.put(p, all != Errors.NONE ? all
                            : txns.contains(transactionalId, t, p) ? Errors.NONE : Errors.INVALID_TXN_STATE);
                }
            });
            return CompletableFuture.completedFuture(out);
        }, e -> {
            Map<String, Map<Integer, Errors>> out = new LinkedHashMap<>();
            partitions.forEach((t, ps) -> {
                Map<Integer, Errors> m = out.computeIfAbsent(t, x -> new LinkedHashMap<>());
                for (int p : ps) m.put(p, e);
            });
            return out;
        });
    }

    /** EndTxn of a classic client (v0–4): commit or abort the ongoing transaction. */
    public CompletableFuture<EndTxnResult> endTxn(String transactionalId, long producerId, short epoch, boolean commit) {
        return endTxn(transactionalId, producerId, epoch, commit, (short) 0);
    }

    /**
     * EndTxn: commit or abort the ongoing transaction. A client of transaction version 2 (EndTxn
     * v5+) has the epoch bumped and is answered the producer id and epoch to continue with.
     */
    public CompletableFuture<EndTxnResult> endTxn(String transactionalId, long producerId, short epoch, boolean commit,
                                                  short clientVersion) {
        return requests.submit(() -> loadError(transactionalId),
                () -> txns.endTxn(transactionalId, producerId, epoch, commit, clientVersion), EndTxnResult::of);
    }

    /** DescribeTransactions: each id, or TRANSACTIONAL_ID_NOT_FOUND. */
    public CompletableFuture<List<TxnDescription>> describe(List<String> transactionalIds) {
        return submit(() -> {
            List<TxnDescription> out = new ArrayList<>(transactionalIds.size());
            for (String id : transactionalIds) {
                Errors notLoaded = loadError(id);
                if (notLoaded != Errors.NONE) {
                    out.add(new TxnDescription(id, notLoaded, "", -1, (short) -1, 0, -1, Map.of()));
                    continue;
                }
                Transactions.Entry e = txns.get(id);
                out.add(e == null || e.current.producerEpoch() < 0
                        ? new TxnDescription(id, Errors.TRANSACTIONAL_ID_NOT_FOUND, "", -1, (short) -1, 0, -1, Map.of())
                        : describe(e));
            }
            return CompletableFuture.completedFuture(out);
        }, e -> {
            List<TxnDescription> out = new ArrayList<>();
            for (String id : transactionalIds) out.add(new TxnDescription(id, e, "", -1, (short) -1, 0, -1, Map.of()));
            return out;
        });
    }

    /**
     * ListTransactions: every known id, filtered by state names (Kafka's labels), producer ids and a
     * minimum running time (empty filters and a negative duration filter nothing). While a
     * partition of {@code __transaction_state} loads, COORDINATOR_LOAD_IN_PROGRESS and none, as
     * Kafka answers: a partial list would leave out transactions still open, and a tool waiting
     * for none to be open would stop waiting too early.
     */
    public CompletableFuture<TxnListing> list(Set<String> states, Set<Long> producerIds, long minDurationMs) {
        return submit(() -> {
            if (loader.anyLoading()) {
                return CompletableFuture.completedFuture(TxnListing.failed(Errors.COORDINATOR_LOAD_IN_PROGRESS));
            }
            long now = loop.now();
            List<TxnDescription> out = new ArrayList<>();
            for (Transactions.Entry e : txns.all()) {
                TxnSnapshot s = e.current;
                if (s.producerEpoch() < 0) continue;
                if (!states.isEmpty() && !states.contains(s.state().label())) continue;
                if (!producerIds.isEmpty() && !producerIds.contains(s.producerId())) continue;
                if (minDurationMs >= 0 && (s.state() != TxnState.ONGOING || now - s.startMs() < minDurationMs)) continue;
                out.add(describe(e));
            }
            return CompletableFuture.completedFuture(new TxnListing(Errors.NONE, out));
        }, TxnListing::failed);
    }

    private static TxnDescription describe(Transactions.Entry e) {
        TxnSnapshot s = e.current;
        return new TxnDescription(e.id, Errors.NONE, s.state().label(), s.producerId(), s.producerEpoch(), s.timeoutMs(),
                s.startMs(), s.partitions());
    }

    /**
     * Whether a transactional batch of this producer and epoch may be appended to this partition:
     * the partition was added to the producer's ongoing transaction. Any thread.
     */
    public boolean inOngoingTransaction(long producerId, short epoch, String topic, int partition) {
        return open.contains(producerId, epoch, topic, partition);
    }

    /**
     * The answer to a transactional produce: NONE when the partition is part of the producer's
     * ongoing transaction at this epoch, INVALID_PRODUCER_EPOCH when the producer has been fenced
     * by a newer epoch, INVALID_TXN_STATE otherwise. Any thread.
     */
    public Errors verifyAppend(long producerId, short epoch, String topic, int partition) {
        if (open.contains(producerId, epoch, topic, partition)) return Errors.NONE;
        return open.isFenced(producerId, epoch) ? Errors.INVALID_PRODUCER_EPOCH : Errors.INVALID_TXN_STATE;
    }

    /**
     * Kafka's error for a transactional id whose partition of {@code __transaction_state} is not
     * loaded: COORDINATOR_LOAD_IN_PROGRESS while it loads, NOT_COORDINATOR once its load failed;
     * NONE when loaded, and for a null or empty id (the API's own check answers it). Owner thread.
     */
    private Errors loadError(String transactionalId) {
        if (transactionalId == null || transactionalId.isEmpty()) return Errors.NONE;
        return loader.loadError(config.partitionFor(transactionalId));
    }

    private <R> CompletableFuture<R> submit(Supplier<CompletableFuture<R>> task, Function<Errors, R> errorResponse) {
        return requests.submit(task, errorResponse);
    }

    /** Test hook: runs what is queued and every timer that is due (only when not threaded). */
    int runPending() {
        if (threaded) throw new IllegalStateException("driven by its own thread");
        return loop.runPending();
    }

    /** Requests and timers that failed with an exception (a bug if not zero). */
    int taskFailures() {
        return requests.failures();
    }

    /** Test view: the durable state of an id, or null. */
    TxnSnapshot state(String transactionalId) {
        Transactions.Entry e = txns.get(transactionalId);
        return e == null ? null : e.current;
    }

    int replaySkipped() {
        return replaySkipped;
    }
}
