package io.brook.coordinator.txn;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.IntPredicate;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import io.brook.coordinator.runtime.CoordinatorLogException;
import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.DurableWriter;
import io.brook.coordinator.runtime.EventLoop;
import io.brook.wire.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The state machine of every transactional id (see {@link TxnState}): InitProducerId,
 * AddPartitionsToTxn, EndTxn, the markers that complete a transaction, the abort of transactions
 * past their time-out and the removal of expired transactional ids, with Kafka's errors.
 *
 * <p><b>Threading.</b> Owner thread of the coordinator's {@link EventLoop} only; futures complete
 * there.
 *
 * <p><b>Durability.</b> Every change of a transactional id is a record of {@code __transaction_state}
 * and takes effect in memory, and is answered, only once that record is durable. While it is in
 * flight the id is "pending": every other request for it gets CONCURRENT_TRANSACTIONS (retriable),
 * as in Kafka. A write that fails leaves the id as it was and answers with the error Kafka gives
 * for a failed append (NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE). An EndTxn is answered once
 * PrepareCommit or PrepareAbort is durable; the markers follow, and CompleteCommit or
 * CompleteAbort is written when they are durable (the one change that takes effect when appended,
 * see {@link #complete}). Markers that fail are written again, after
 * {@link #MARKER_RETRY_MS} doubled per failure in a row up to {@link #MAX_MARKER_RETRY_MS} (a
 * partition whose log is offline is retried until it is back, as Kafka does); a transaction found in a Prepare state at start-up has its markers
 * written again (they are idempotent for the partitions).
 */
final class Transactions {
    private static final Logger LOG = LoggerFactory.getLogger(Transactions.class);

    /** How long after a failed marker write the markers are written again; doubled per failure in a row. */
    static final long MARKER_RETRY_MS = 100;
    /** The longest wait between two attempts to write the markers of one transaction. */
    static final long MAX_MARKER_RETRY_MS = 10_000;
    private static final String ABORT_TIMER = "txn-abort-timed-out";
    private static final String EXPIRE_TIMER = "txn-remove-expired";

    /** One transactional id: its durable state, and the state a write in flight moves it to. */
    static final class Entry {
        final String id;
        TxnSnapshot current;
        TxnState pending;
        /** Marker writes of the current transaction that failed in a row (for the back-off). */
        int markerFailures;
        /**
         * While the transaction's end is being written (its markers, then CompleteCommit or
         * CompleteAbort): completes when that is done or has failed. Null otherwise.
         */
        CompletableFuture<Void> ending;

        Entry(String id, TxnSnapshot current) {
            this.id = id;
            this.current = current;
        }
    }

    private final TxnCoordinatorConfig config;
    private final EventLoop loop;
    private final DurableWriter writer;
    private final LongSupplier producerIds;
    private final TxnMarkers markers;
    private final OpenTransactions open;
    private final Map<String, Entry> entries = new HashMap<>();
    /** Which partitions of {@code __transaction_state} are loaded (see {@link #start}). */
    private IntPredicate active = p -> true;
    /**
     * The version of the {@code __transaction_state} values written: 1 (flexible, with the fields
     * of transactions V2) once {@code transaction.version} is finalized at 1 or more, else 0.
     */
    private volatile short valueVersion = TxnLogRecords.VALUE_VERSION_FLEXIBLE;
    /** Set at shutdown: requests that waited for a transaction's end are answered NOT_COORDINATOR. */
    private boolean closed;

    Transactions(TxnCoordinatorConfig config, EventLoop loop, DurableWriter writer, LongSupplier producerIds,
                 TxnMarkers markers, OpenTransactions open) {
        this.config = config;
        this.loop = loop;
        this.writer = writer;
        this.producerIds = producerIds;
        this.markers = markers;
        this.open = open;
    }

    /** Sets the finalized {@code transaction.version}, which decides the version of the values written. */
    void transactionVersion(short level) {
        valueVersion = level >= 1 ? TxnLogRecords.VALUE_VERSION_FLEXIBLE : TxnLogRecords.VALUE_VERSION;
    }

    // ------------------------------------------------------------------ replay

    /** Applies one record of {@code __transaction_state} while its partition loads. */
    void replay(CoordinatorRecord r) {
        String id = TxnLogRecords.readKey(r.key());
        if (id == null) return;
        if (r.isTombstone()) {
            entries.remove(id);
            return;
        }
        TxnSnapshot s = TxnLogRecords.readValue(r.value());
        Entry e = entries.computeIfAbsent(id, x -> new Entry(x, s));
        e.current = s;
    }

    /**
     * A partition of {@code __transaction_state} is loaded: its ids serve, and what was prepared
     * is completed (its markers are written again). An ongoing transaction stays open: its
     * transactional offsets are in {@code __consumer_offsets} already, and its producer goes on or
     * times out.
     */
    void loaded(int partition) {
        for (Entry e : entries.values()) {
            if (config.partitionFor(e.id) != partition) continue;
            open.update(e.current);
            TxnState s = e.current.state();
            if (s == TxnState.PREPARE_COMMIT || s == TxnState.PREPARE_ABORT) {
                sendMarkers(e);
            }
        }
    }

    /** A partition could not be loaded: what was read of it is forgotten. */
    void failed(int partition) {
        entries.values().removeIf(e -> config.partitionFor(e.id) == partition);
    }

    /**
     * A partition is no longer this node's: its ids are forgotten with their open transactions
     * (the partition side asks the new coordinator) and their marker retries; a write of theirs in
     * flight fails ({@link DurableWriter}) and is answered NOT_COORDINATOR.
     */
    void unloaded(int partition) {
        entries.values().removeIf(e -> {
            if (config.partitionFor(e.id) != partition) return false;
            open.remove(e.current.producerId());
            loop.cancel("txn-markers-" + e.id);
            return true;
        });
    }

    /**
     * Arms the periodic tasks; they leave alone the ids of a partition not loaded ({@code active}
     * false), whose state is partial.
     */
    void start(IntPredicate active) {
        this.active = active;
        loop.schedule(ABORT_TIMER, config.abortTimedOutIntervalMs(), this::abortTimedOut);
        loop.schedule(EXPIRE_TIMER, config.removeExpiredIntervalMs(), this::removeExpired);
    }

    Entry get(String id) {
        return entries.get(id);
    }

    Iterable<Entry> all() {
        return entries.values();
    }

    // ------------------------------------------------------------------ InitProducerId

    /**
     * A new producer id for transactional id {@code id}; -1 (logged) when none can be had; throws
     * {@link ProducerIdsPending} when the ids are under way (the caller runs its request again then).
     */
    private long newProducerId(String id) {
        try {
            return producerIds.getAsLong();
        } catch (ProducerIdsPending p) {
            throw p;
        } catch (RuntimeException x) {
            LOG.warn("no producer id for transactional id {}", id, x);
            return -1L;
        }
    }

    CompletableFuture<InitPidResult> initProducerId(String id, int timeoutMs, long expectedPid, short expectedEpoch) {
        if (id.isEmpty()) return done(InitPidResult.failed(Errors.INVALID_REQUEST));
        if (timeoutMs <= 0 || timeoutMs > config.maxTimeoutMs()) return done(InitPidResult.failed(Errors.INVALID_TRANSACTION_TIMEOUT));
        long now = loop.now();
        Entry e = entries.get(id);
        if (e == null) {
            long pid;
            try {
                pid = newProducerId(id);
            } catch (ProducerIdsPending p) {
                return whenIdsArrive(p, () -> initProducerId(id, timeoutMs, expectedPid, expectedEpoch),
                        InitPidResult.failed(Errors.COORDINATOR_NOT_AVAILABLE));
            }
            if (pid < 0) return done(InitPidResult.failed(Errors.COORDINATOR_NOT_AVAILABLE));
            e = new Entry(id, new TxnSnapshot(pid, (short) -1, (short) -1, timeoutMs, TxnState.EMPTY,
                    TxnSnapshot.NONE, -1L, now));
            entries.put(id, e);
            TxnSnapshot target = new TxnSnapshot(pid, (short) 0, (short) -1, timeoutMs, TxnState.EMPTY, TxnSnapshot.NONE, -1L, now);
            Entry created = e;
            return write(e, target).thenApply(err -> {
                if (err != Errors.NONE && created.current.producerEpoch() < 0 && created.pending == null) {
                    entries.remove(id, created); // never written: forget it again
                }
                return err == Errors.NONE ? new InitPidResult(Errors.NONE, pid, (short) 0) : InitPidResult.failed(err);
            });
        }
        if (e.pending != null) return done(InitPidResult.failed(Errors.CONCURRENT_TRANSACTIONS));
        TxnSnapshot cur = e.current;
        if (expectedPid >= 0 && !(expectedPid == cur.producerId()
                && (expectedEpoch == cur.producerEpoch() || expectedEpoch == cur.lastProducerEpoch()))) {
            return done(InitPidResult.failed(Errors.PRODUCER_FENCED));
        }
        switch (cur.state()) {
            case PREPARE_COMMIT, PREPARE_ABORT -> {
                return done(InitPidResult.failed(Errors.CONCURRENT_TRANSACTIONS));
            }
            case ONGOING -> {
                // A new incarnation of the producer: fence the old one and abort what it left open;
                // the client retries on CONCURRENT_TRANSACTIONS until the abort is complete.
                fenceAndAbort(e);
                return done(InitPidResult.failed(Errors.CONCURRENT_TRANSACTIONS));
            }
            case EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT -> {
                if (expectedPid >= 0 && cur.lastProducerEpoch() >= 0 && expectedEpoch == cur.lastProducerEpoch()
                        && expectedEpoch != cur.producerEpoch()) {
                    // The retry of a bump that already happened: answer it again.
                    return done(new InitPidResult(Errors.NONE, cur.producerId(), cur.producerEpoch()));
                }
                TxnSnapshot target;
                if (cur.producerEpoch() >= Short.MAX_VALUE - 1) {
                    long pid;
                    try {
                        pid = newProducerId(id);
                    } catch (ProducerIdsPending p) {
                        return whenIdsArrive(p, () -> initProducerId(id, timeoutMs, expectedPid, expectedEpoch),
                                InitPidResult.failed(Errors.COORDINATOR_NOT_AVAILABLE));
                    }
                    if (pid < 0) return done(InitPidResult.failed(Errors.COORDINATOR_NOT_AVAILABLE));
                    target = new TxnSnapshot(pid, (short) 0, (short) -1, timeoutMs, TxnState.EMPTY, TxnSnapshot.NONE, -1L, now);
                } else {
                    target = new TxnSnapshot(cur.producerId(), (short) (cur.producerEpoch() + 1), cur.producerEpoch(),
                            timeoutMs, TxnState.EMPTY, TxnSnapshot.NONE, -1L, now);
                }
                return write(e, target).thenApply(err -> err == Errors.NONE
                        ? new InitPidResult(Errors.NONE, target.producerId(), target.producerEpoch())
                        : InitPidResult.failed(err));
            }
            default -> {
                return done(InitPidResult.failed(Errors.UNKNOWN_SERVER_ERROR));
            }
        }
    }

    // ------------------------------------------------------------------ AddPartitionsToTxn

    /** Errors every request of a running transaction shares: unknown id, wrong producer, fenced, busy. */
    private Errors check(Entry e, long pid, short epoch) {
        if (e == null || e.current.producerEpoch() < 0) return Errors.INVALID_PRODUCER_ID_MAPPING;
        if (e.current.nextProducerId() >= 0 && e.current.nextProducerId() == pid && epoch == 0) {
            // The producer already has the id its prepared transaction rolls over to: busy until it completes.
            return Errors.CONCURRENT_TRANSACTIONS;
        }
        if (e.current.producerId() != pid) return Errors.INVALID_PRODUCER_ID_MAPPING;
        if (e.current.producerEpoch() != epoch) return Errors.PRODUCER_FENCED;
        if (e.pending != null) return Errors.CONCURRENT_TRANSACTIONS;
        return Errors.NONE;
    }

    /**
     * Adds partitions to the transaction (AddPartitionsToTxn, AddOffsetsToTxn, and the implicit
     * addition of a transactions-V2 produce or TxnOffsetCommit, {@code clientVersion} 2).
     *
     * <p>While the id's previous transaction is still ending (its markers and its Complete
     * state being written) the request waits for that and is then served, instead of being
     * answered CONCURRENT_TRANSACTIONS at once as Kafka does: a producer begins its next
     * transaction as soon as EndTxn is answered, and would otherwise back off (20 ms for
     * AddPartitionsToTxn, {@code retry.backoff.ms} for a transactions-V2 produce) for a wait of a
     * few forces. If the end does not complete (a marker write failed and is retried later), the
     * request is answered CONCURRENT_TRANSACTIONS then, and the client retries as usual.
     */
    CompletableFuture<Errors> addPartitions(String id, long pid, short epoch, Map<String, ? extends Set<Integer>> partitions,
                                            short clientVersion) {
        Entry ending = entries.get(id);
        if (ending != null && ending.ending != null) {
            return ending.ending.thenCompose(v -> closed ? done(Errors.NOT_COORDINATOR)
                    : addPartitionsNow(id, pid, epoch, partitions, clientVersion));
        }
        return addPartitionsNow(id, pid, epoch, partitions, clientVersion);
    }

    private CompletableFuture<Errors> addPartitionsNow(String id, long pid, short epoch,
                                                       Map<String, ? extends Set<Integer>> partitions, short clientVersion) {
        Entry e = entries.get(id);
        Errors err = check(e, pid, epoch);
        if (err != Errors.NONE) return done(err);
        TxnState s = e.current.state();
        if (s == TxnState.PREPARE_COMMIT || s == TxnState.PREPARE_ABORT) return done(Errors.CONCURRENT_TRANSACTIONS);
        if (s == TxnState.ONGOING && e.current.containsAll(partitions)
                && (clientVersion <= e.current.clientVersion())) return done(Errors.NONE);
        if (!TxnState.ONGOING.canFollow(s)) return done(Errors.INVALID_TXN_STATE);
        return write(e, e.current.withPartitions(partitions, clientVersion, loop.now()));
    }

    /** AddPartitionsToTxn with {@code verify_only}: whether each partition is part of the open transaction. */
    Errors verify(String id, long pid, short epoch) {
        Entry e = entries.get(id);
        Errors err = check(e, pid, epoch);
        if (err != Errors.NONE) return err;
        return e.current.state() == TxnState.ONGOING ? Errors.NONE : Errors.INVALID_TXN_STATE;
    }

    boolean contains(String id, String topic, int partition) {
        Entry e = entries.get(id);
        return e != null && e.current.state() == TxnState.ONGOING && e.current.contains(topic, partition);
    }

    // ------------------------------------------------------------------ EndTxn

    /**
     * EndTxn. {@code clientVersion} is 2 for EndTxn v5+ (transactions V2): the epoch is bumped
     * by the end of every transaction, a new producer id is taken when the bump reaches the last
     * epoch, and the answer carries the producer id and epoch to continue with. Epochs are checked
     * as Kafka does: while the id's last transaction ran V2, a retry of an end that was already
     * written comes with the epoch before the bump (or, after a roll-over, the previous producer
     * id at the last usable epoch) and is answered as the first was; any other epoch but the
     * current one is PRODUCER_FENCED.
     *
     * <p>An EndTxn of a V2 producer's next transaction that comes while the previous one is still
     * ending (its markers being written) waits for that and is then served, as
     * {@link #addPartitions} does; a retry of the prepared end is answered at once. A V2 producer
     * continues at the bumped epoch as soon as its EndTxn is answered; if every send of its next
     * transaction failed meanwhile (its partitions could not be added while the coordinator was
     * busy), it aborts at once, at the epoch of the prepared end. Kafka answers that
     * PRODUCER_FENCED, a fatal error for a producer no other one fenced; here it is the end of an
     * empty transaction once the previous one is complete (CONCURRENT_TRANSACTIONS, retried by the
     * client, if that end does not complete now).
     */
    CompletableFuture<EndTxnResult> endTxn(String id, long pid, short epoch, boolean commit, short clientVersion) {
        Entry ending = entries.get(id);
        if (ending != null && ending.ending != null && endsTheNextTransaction(ending.current, pid, epoch)) {
            return ending.ending.thenCompose(v -> closed ? done(EndTxnResult.of(Errors.NOT_COORDINATOR))
                    : endTxnNow(id, pid, epoch, commit, clientVersion));
        }
        return endTxnNow(id, pid, epoch, commit, clientVersion);
    }

    /**
     * A V2 end prepared, and an EndTxn at the producer id and epoch it continues with (the bumped
     * epoch, or epoch 0 of the new producer id of a roll-over): the producer's next transaction's,
     * not a retry.
     */
    private static boolean endsTheNextTransaction(TxnSnapshot cur, long pid, short epoch) {
        return cur.isV2() && (cur.state() == TxnState.PREPARE_COMMIT || cur.state() == TxnState.PREPARE_ABORT)
                && cur.continuingProducerId() == pid && cur.continuingProducerEpoch() == epoch;
    }

    private CompletableFuture<EndTxnResult> endTxnNow(String id, long pid, short epoch, boolean commit,
                                                      short clientVersion) {
        Entry e = entries.get(id);
        if (e == null || e.current.producerEpoch() < 0) return done(EndTxnResult.of(Errors.INVALID_PRODUCER_ID_MAPPING));
        TxnSnapshot cur = e.current;
        TxnState s = cur.state();
        boolean retryOnOverflow = cur.isV2() && cur.previousProducerId() == pid && epoch == Short.MAX_VALUE - 1
                && cur.producerEpoch() == 0;
        boolean retryOnBump = cur.isV2() && cur.producerEpoch() == epoch + 1;
        // A V2 producer whose sends all failed before their partitions were added aborts a
        // transaction the coordinator never saw: the epoch is bumped all the same, so that
        // whatever it sent is fenced.
        boolean abortsNothing = !commit && clientVersion >= TxnSnapshot.TV2 && epoch == cur.producerEpoch()
                && (s == TxnState.EMPTY || s.isComplete());
        boolean validEpoch;
        if (cur.isV2()) {
            validEpoch = switch (s) {
                case PREPARE_COMMIT, PREPARE_ABORT -> retryOnBump;
                case COMPLETE_COMMIT, COMPLETE_ABORT -> retryOnBump || retryOnOverflow || abortsNothing;
                default -> epoch == cur.producerEpoch();
            };
        } else {
            validEpoch = epoch == cur.producerEpoch();
        }
        if (endsTheNextTransaction(cur, pid, epoch)) {
            // this one's markers are still being written (a failed write is retried later)
            return done(EndTxnResult.of(Errors.CONCURRENT_TRANSACTIONS));
        }
        if (cur.producerId() != pid && !retryOnOverflow) return done(EndTxnResult.of(Errors.INVALID_PRODUCER_ID_MAPPING));
        if (!validEpoch) return done(EndTxnResult.of(Errors.PRODUCER_FENCED));
        if (e.pending != null) return done(EndTxnResult.of(Errors.CONCURRENT_TRANSACTIONS));
        if (abortsNothing) s = TxnState.ONGOING; // ends as an ongoing transaction without partitions
        switch (s) {
            case ONGOING -> {
                long nextPid = -1L;
                if (clientVersion >= TxnSnapshot.TV2 && cur.producerEpoch() >= Short.MAX_VALUE - 1) {
                    try {
                        nextPid = newProducerId(id);
                    } catch (ProducerIdsPending p) {
                        return whenIdsArrive(p, () -> endTxnNow(id, pid, epoch, commit, clientVersion),
                                EndTxnResult.of(Errors.COORDINATOR_NOT_AVAILABLE));
                    }
                    if (nextPid < 0) return done(EndTxnResult.of(Errors.COORDINATOR_NOT_AVAILABLE));
                }
                TxnSnapshot target = cur.prepared(commit ? TxnState.PREPARE_COMMIT : TxnState.PREPARE_ABORT,
                        clientVersion, nextPid, loop.now());
                return write(e, target).thenApply(w -> {
                    if (w != Errors.NONE) return EndTxnResult.of(w);
                    sendMarkers(e);
                    return new EndTxnResult(Errors.NONE, target.continuingProducerId(), target.continuingProducerEpoch());
                });
            }
            case COMPLETE_COMMIT -> {
                return commit ? done(new EndTxnResult(Errors.NONE, cur.producerId(), cur.producerEpoch()))
                        : invalidState(id, cur, commit);
            }
            case COMPLETE_ABORT -> {
                return commit ? invalidState(id, cur, commit)
                        : done(new EndTxnResult(Errors.NONE, cur.producerId(), cur.producerEpoch()));
            }
            case PREPARE_COMMIT -> {
                return commit ? done(EndTxnResult.of(Errors.CONCURRENT_TRANSACTIONS)) : invalidState(id, cur, commit);
            }
            case PREPARE_ABORT -> {
                return commit ? invalidState(id, cur, commit) : done(EndTxnResult.of(Errors.CONCURRENT_TRANSACTIONS));
            }
            default -> {
                return invalidState(id, cur, commit);
            }
        }
    }

    /**
     * INVALID_TXN_STATE, which a producer treats as fatal, is logged with the state that caused it
     * (Kafka logs it only at debug level): a client that sees it can be matched with its cause.
     */
    private static CompletableFuture<EndTxnResult> invalidState(String id, TxnSnapshot cur, boolean commit) {
        LOG.info("EndTxn({}) of transactional id {} refused with INVALID_TXN_STATE: producer {} epoch {} in state {}",
                commit ? "commit" : "abort", id, cur.producerId(), cur.producerEpoch(), cur.state());
        return done(EndTxnResult.of(Errors.INVALID_TXN_STATE));
    }

    // ------------------------------------------------------------------ fencing, markers, time-outs

    /**
     * Bumps the epoch of an ongoing transaction (so that its producer is fenced) and aborts it
     * with the new epoch; PrepareEpochFence while the PrepareAbort record is in flight.
     */
    private void fenceAndAbort(Entry e) {
        TxnSnapshot cur = e.current;
        short epoch = cur.producerEpoch() < Short.MAX_VALUE - 1 ? (short) (cur.producerEpoch() + 1) : cur.producerEpoch();
        // Transactions V2 answers an EndTxn at the epoch just below the current one as the retry of
        // an end already written: a fenced V2 producer's epoch is bumped twice so that its own
        // EndTxn is PRODUCER_FENCED (Kafka bumps once to fence and once more for the abort). When
        // there is no room for two bumps the abort is recorded as a classic one, whose EndTxn
        // accepts only the current epoch.
        short clientVersion = cur.clientVersion();
        if (cur.isV2()) {
            if (epoch < Short.MAX_VALUE - 1) {
                epoch++;
            } else {
                clientVersion = 0;
            }
        }
        TxnSnapshot target = new TxnSnapshot(cur.producerId(), epoch, cur.producerEpoch(), cur.timeoutMs(),
                TxnState.PREPARE_ABORT, cur.partitions(), cur.startMs(), loop.now(), cur.previousProducerId(), -1L,
                clientVersion);
        write(e, target, TxnState.PREPARE_EPOCH_FENCE).thenAccept(w -> {
            if (w == Errors.NONE) sendMarkers(e);
        });
    }

    private void sendMarkers(Entry e) {
        TxnSnapshot prepared = e.current;
        boolean commit = prepared.state() == TxnState.PREPARE_COMMIT;
        if (e.ending == null) e.ending = new CompletableFuture<>();
        CompletableFuture<Void> written;
        if (prepared.partitions().isEmpty()) {
            written = CompletableFuture.completedFuture(null);
        } else {
            try {
                written = markers.write(prepared.producerId(), prepared.producerEpoch(), commit, prepared.isV2(),
                        prepared.partitions());
            } catch (RuntimeException x) {
                written = CompletableFuture.failedFuture(x);
            }
        }
        written.whenComplete((v, x) -> loop.execute(() -> {
            if (!isStill(e, prepared)) {
                ended(e);
                return;
            }
            if (x != null) {
                ended(e);
                long delay = markerRetryDelay(e.markerFailures++);
                if (e.markerFailures == 1 || delay == MAX_MARKER_RETRY_MS) {
                    LOG.warn("markers of transactional id {} not written, trying again in {} ms", e.id, delay, x);
                }
                loop.schedule("txn-markers-" + e.id, delay, () -> {
                    if (isStill(e, prepared)) sendMarkers(e);
                });
                return;
            }
            e.markerFailures = 0;
            complete(e, prepared, commit);
        }));
    }

    /** 100 ms, doubled per failure in a row, at most {@link #MAX_MARKER_RETRY_MS}. */
    static long markerRetryDelay(int failuresBefore) {
        return failuresBefore >= 7 ? MAX_MARKER_RETRY_MS : Math.min(MAX_MARKER_RETRY_MS, MARKER_RETRY_MS << failuresBefore);
    }

    /** Whether {@code e} is still known and still in the state {@code prepared} (nothing changed it since). */
    private boolean isStill(Entry e, TxnSnapshot prepared) {
        return entries.get(e.id) == e && e.current.equals(prepared);
    }

    /**
     * Writes CompleteCommit or CompleteAbort once the markers are durable. Unlike every other
     * change, it takes effect as soon as it is appended, before it is durable: it only records
     * that the markers are durable, which they are, and the id's next change (the producer's next
     * transaction, usually already waiting) is appended after it and thus forced with it, one
     * force where there would be two in a row. A crash that takes the Complete state back leaves
     * the Prepare state, whose markers are written again; so does a failure to make it durable.
     */
    private void complete(Entry e, TxnSnapshot prepared, boolean commit) {
        if (e.pending != null) {
            // Cannot happen (a Prepare state accepts no other change), but never write over a write.
            loop.schedule("txn-markers-" + e.id, MARKER_RETRY_MS, () -> complete(e, prepared, commit));
            return;
        }
        TxnSnapshot target = prepared.completed(commit ? TxnState.COMPLETE_COMMIT : TxnState.COMPLETE_ABORT, loop.now());
        int partition = config.partitionFor(e.id);
        e.pending = target.state();
        DurableWriter.Appended w = writer.append(partition, List.of(new CoordinatorRecord(partition,
                TxnLogRecords.key(e.id), TxnLogRecords.value(target, valueVersion))));
        if (w.appended()) {
            e.pending = null;
            apply(e, target);
            ended(e);
        }
        w.durable().whenComplete((v, x) -> {
            if (x == null) return;
            LOG.warn("transaction state of {} not written", e.id, x);
            if (!w.appended()) {
                e.pending = null;
                ended(e);
                loop.schedule("txn-markers-" + e.id, MARKER_RETRY_MS, () -> {
                    if (isStill(e, prepared)) complete(e, prepared, commit);
                });
            } else if (isStill(e, target)) {
                apply(e, prepared);
                loop.schedule("txn-markers-" + e.id, MARKER_RETRY_MS, () -> {
                    if (isStill(e, prepared)) sendMarkers(e);
                });
            }
        });
    }

    /** The end of {@code e}'s transaction is written, or failed for now: what waited for it goes on. */
    private static void ended(Entry e) {
        CompletableFuture<Void> waiting = e.ending;
        e.ending = null;
        if (waiting != null) waiting.complete(null);
    }

    /** Shutdown: requests that wait for the end of a transaction are answered NOT_COORDINATOR. */
    void close() {
        closed = true;
        for (Entry e : entries.values()) ended(e);
    }

    /** Aborts every ongoing transaction older than its time-out, fencing its producer (Kafka's task). */
    void abortTimedOut() {
        long now = loop.now();
        for (Entry e : new ArrayList<>(entries.values())) {
            TxnSnapshot s = e.current;
            if (e.pending == null && s.state() == TxnState.ONGOING && s.startMs() >= 0 && now - s.startMs() > s.timeoutMs()
                    && active.test(config.partitionFor(e.id))) {
                LOG.info("aborting transaction of {} (producer {} epoch {}): older than its time-out of {} ms",
                        e.id, s.producerId(), s.producerEpoch(), s.timeoutMs());
                fenceAndAbort(e);
            }
        }
        loop.schedule(ABORT_TIMER, config.abortTimedOutIntervalMs(), this::abortTimedOut);
    }

    /** Forgets transactional ids idle for {@code transactional.id.expiration.ms} (a tombstone each). */
    void removeExpired() {
        long now = loop.now();
        Map<Integer, List<CoordinatorRecord>> byPartition = new HashMap<>();
        List<Entry> expiring = new ArrayList<>();
        for (Entry e : entries.values()) {
            TxnSnapshot s = e.current;
            if (e.pending == null && s.state().isComplete() && now - s.updateMs() >= config.transactionalIdExpirationMs()
                    && active.test(config.partitionFor(e.id))) {
                int p = config.partitionFor(e.id);
                byPartition.computeIfAbsent(p, x -> new ArrayList<>())
                        .add(new CoordinatorRecord(p, TxnLogRecords.key(e.id), null));
                e.pending = TxnState.DEAD;
                expiring.add(e);
            }
        }
        for (Map.Entry<Integer, List<CoordinatorRecord>> part : byPartition.entrySet()) {
            writer.write(part.getKey(), part.getValue()).whenComplete((v, x) -> {
                for (Entry e : expiring) {
                    if (config.partitionFor(e.id) != part.getKey()) continue;
                    e.pending = null;
                    if (x == null) {
                        entries.remove(e.id, e);
                        open.remove(e.current.producerId());
                    }
                }
            });
        }
        loop.schedule(EXPIRE_TIMER, config.removeExpiredIntervalMs(), this::removeExpired);
    }

    // ------------------------------------------------------------------ writes

    private CompletableFuture<Errors> write(Entry e, TxnSnapshot target) {
        return write(e, target, target.state());
    }

    /** Writes {@code target} for {@code e}; applies it when durable. Completes with NONE or the error to answer. */
    private CompletableFuture<Errors> write(Entry e, TxnSnapshot target, TxnState pending) {
        e.pending = pending;
        int partition = config.partitionFor(e.id);
        CoordinatorRecord record = new CoordinatorRecord(partition, TxnLogRecords.key(e.id),
                TxnLogRecords.value(target, valueVersion));
        return writer.write(partition, List.of(record)).handle((v, x) -> {
            e.pending = null;
            if (x != null) {
                LOG.warn("transaction state of {} not written", e.id, x);
                return appendError(x);
            }
            apply(e, target);
            return Errors.NONE;
        });
    }

    /** {@code target} is the id's state now. */
    private void apply(Entry e, TxnSnapshot target) {
        TxnSnapshot before = e.current;
        e.current = target;
        if (before.producerId() != target.producerId()) open.remove(before.producerId());
        open.update(target);
    }

    /** Kafka's answer to a failed append to the transaction log. */
    static Errors appendError(Throwable x) {
        Throwable cause = x instanceof CompletionException && x.getCause() != null ? x.getCause() : x;
        if (cause instanceof CoordinatorLogException c && c.reason() == CoordinatorLogException.Reason.NOT_LEADER) {
            return Errors.NOT_COORDINATOR;
        }
        return Errors.COORDINATOR_NOT_AVAILABLE;
    }

    /**
     * A request that found no producer id at hand, run again on the loop once the next block is
     * there (no thread waits for it meanwhile); {@code unavailable} if no block came.
     */
    private <T> CompletableFuture<T> whenIdsArrive(ProducerIdsPending pending, Supplier<CompletableFuture<T>> again,
                                                   T unavailable) {
        CompletableFuture<T> out = new CompletableFuture<>();
        pending.ready().whenComplete((v, e) -> {
            if (e != null) {
                LOG.warn("no producer id: {}", e.toString());
                out.complete(unavailable);
                return;
            }
            loop.execute(() -> {
                try {
                    again.get().whenComplete((r, x) -> {
                        if (x != null) {
                            out.completeExceptionally(x);
                        } else {
                            out.complete(r);
                        }
                    });
                } catch (RuntimeException x) {
                    out.completeExceptionally(x);
                }
            });
        });
        return out;
    }

    private static <T> CompletableFuture<T> done(T value) {
        return CompletableFuture.completedFuture(value);
    }
}
