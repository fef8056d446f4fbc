package io.brook.coordinator.txn;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import io.brook.coordinator.runtime.InMemoryCoordinatorLog;
import io.brook.testkit.MutableClock;
import io.brook.wire.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The transaction coordinator's state machine on virtual time, over an in-memory log. */
class TransactionCoordinatorTest {

    private static final String ID = "txn-a";
    private static final int TIMEOUT = 60_000;

    /** Markers recorded; each completes when the test says so (or at once). */
    static final class RecordingMarkers implements TxnMarkers {
        record Call(long pid, short epoch, boolean commit, Map<String, SortedSet<Integer>> partitions,
                    CompletableFuture<Void> done) {
        }

        final List<Call> calls = new ArrayList<>();
        boolean autoComplete = true;
        boolean fail;

        @Override
        public synchronized CompletableFuture<Void> write(long pid, short epoch, boolean commit, boolean transactionsV2,
                                                          Map<String, SortedSet<Integer>> partitions) {
            CompletableFuture<Void> f = new CompletableFuture<>();
            calls.add(new Call(pid, epoch, commit, partitions, f));
            if (fail) {
                f.completeExceptionally(new IllegalStateException("test"));
            } else if (autoComplete) {
                f.complete(null);
            }
            return f;
        }
    }

    private final MutableClock clock = new MutableClock(1_000_000);
    private final InMemoryCoordinatorLog log = new InMemoryCoordinatorLog();
    private final AtomicLong nextPid = new AtomicLong(1000);
    private final RecordingMarkers markers = new RecordingMarkers();
    private TxnCoordinatorConfig config = TxnCoordinatorConfig.defaults().withPartitions(4);
    private TransactionCoordinator coordinator = start();

    private TransactionCoordinator start() {
        TransactionCoordinator c = new TransactionCoordinator(config, log, clock, nextPid::getAndIncrement, markers, false);
        c.start();
        c.runPending();
        return c;
    }

    private TransactionCoordinator restart() {
        coordinator.close();
        coordinator = start();
        return coordinator;
    }

    @AfterEach
    void noFailures() {
        assertThat(coordinator.taskFailures()).isZero();
        coordinator.close();
    }

    private <T> T run(CompletableFuture<T> f) {
        coordinator.runPending();
        assertThat(f).isDone();
        return f.join();
    }

    private InitPidResult init(String id) {
        return run(coordinator.initProducerId(id, TIMEOUT, -1, (short) -1));
    }

    private Errors add(String id, InitPidResult p, String topic, int... partitions) {
        Set<Integer> ps = new java.util.TreeSet<>();
        for (int x : partitions) ps.add(x);
        return run(coordinator.addPartitions(id, p.producerId(), p.producerEpoch(), Map.of(topic, ps)));
    }

    private Errors end(String id, InitPidResult p, boolean commit) {
        return run(coordinator.endTxn(id, p.producerId(), p.producerEpoch(), commit)).error();
    }

    @Test
    void initAssignsAProducerIdAtEpochZeroAndBumpsTheEpochOnEachInit() {
        InitPidResult first = init(ID);
        assertThat(first.error()).isEqualTo(Errors.NONE);
        assertThat(first.producerId()).isEqualTo(1000);
        assertThat(first.producerEpoch()).isZero();
        InitPidResult second = init(ID);
        assertThat(second.producerId()).isEqualTo(1000);
        assertThat(second.producerEpoch()).isEqualTo((short) 1);
        assertThat(coordinator.state(ID).state()).isEqualTo(TxnState.EMPTY);
    }

    @Test
    void aTimeoutAboveTheMaximumOrNotPositiveIsRefused() {
        assertThat(run(coordinator.initProducerId(ID, 900_001, -1, (short) -1)).error()).isEqualTo(Errors.INVALID_TRANSACTION_TIMEOUT);
        assertThat(run(coordinator.initProducerId(ID, 0, -1, (short) -1)).error()).isEqualTo(Errors.INVALID_TRANSACTION_TIMEOUT);
        assertThat(coordinator.state(ID)).isNull();
    }

    @Test
    void commitWritesCommitMarkersToEveryPartitionThenCompletes() {
        InitPidResult p = init(ID);
        assertThat(add(ID, p, "t", 0, 1)).isEqualTo(Errors.NONE);
        assertThat(add(ID, p, "u", 2)).isEqualTo(Errors.NONE);
        assertThat(coordinator.state(ID).state()).isEqualTo(TxnState.ONGOING);
        assertThat(coordinator.inOngoingTransaction(p.producerId(), p.producerEpoch(), "t", 1)).isTrue();
        assertThat(coordinator.inOngoingTransaction(p.producerId(), p.producerEpoch(), "t", 2)).isFalse();
        assertThat(end(ID, p, true)).isEqualTo(Errors.NONE);
        assertThat(markers.calls).hasSize(1);
        RecordingMarkers.Call c = markers.calls.get(0);
        assertThat(c.commit()).isTrue();
        assertThat(c.pid()).isEqualTo(p.producerId());
        assertThat(c.partitions()).containsOnlyKeys("t", "u");
        assertThat(coordinator.state(ID).state()).isEqualTo(TxnState.COMPLETE_COMMIT);
        assertThat(coordinator.state(ID).partitions()).isEmpty();
        assertThat(coordinator.inOngoingTransaction(p.producerId(), p.producerEpoch(), "t", 1)).isFalse();
        // a retried EndTxn(commit) succeeds, an abort now is a state error
        assertThat(end(ID, p, true)).isEqualTo(Errors.NONE);
        assertThat(end(ID, p, false)).isEqualTo(Errors.INVALID_TXN_STATE);
    }

    @Test
    void requestsWhileMarkersAreInFlightAreConcurrent() {
        markers.autoComplete = false;
        InitPidResult p = init(ID);
        add(ID, p, "t", 0);
        assertThat(end(ID, p, false)).isEqualTo(Errors.NONE);
        assertThat(coordinator.state(ID).state()).isEqualTo(TxnState.PREPARE_ABORT);
        assertThat(end(ID, p, false)).isEqualTo(Errors.CONCURRENT_TRANSACTIONS);
        assertThat(end(ID, p, true)).isEqualTo(Errors.INVALID_TXN_STATE);
        assertThat(run(coordinator.initProducerId(ID, TIMEOUT, -1, (short) -1)).error()).isEqualTo(Errors.CONCURRENT_TRANSACTIONS);
        markers.calls.get(0).done().complete(null);
        coordinator.runPending();
        assertThat(coordinator.state(ID).state()).isEqualTo(TxnState.COMPLETE_ABORT);
    }

    @Test
    void theNextTransactionsAdditionWaitsForThePreviousOneToComplete() {
        markers.autoComplete = false;
        InitPidResult p = init(ID);
        add(ID, p, "t", 0);
        assertThat(end(ID, p, true)).isEqualTo(Errors.NONE);
        // the producer begins its next transaction at once: no CONCURRENT_TRANSACTIONS and back-off
        CompletableFuture<Errors> next = coordinator.addPartitions(ID, p.producerId(), p.producerEpoch(),
                Map.of("t", Set.of(1)));
        coordinator.runPending();
        assertThat(next).isNotDone();
        log.holdAppends(true);
        markers.calls.get(0).done().complete(null);
        coordinator.runPending();
        // CompleteCommit and the next transaction's Ongoing are appended together, for one force
        assertThat(log.heldCount()).isEqualTo(2);
        assertThat(next).as("answered only once both are durable").isNotDone();
        log.holdAppends(false);
        log.releaseHeld();
        coordinator.runPending();
        assertThat(next).isCompletedWithValue(Errors.NONE);
        assertThat(coordinator.state(ID).state()).isEqualTo(TxnState.ONGOING);
        assertThat(coordinator.state(ID).partitions()).containsOnlyKeys("t");
        assertThat(coordinator.inOngoingTransaction(p.producerId(), p.producerEpoch(), "t", 1)).isTrue();
    }

    @Test
    void aWaitingAdditionIsToldToRetryWhenTheMarkersFail() {
        markers.autoComplete = false;
        InitPidResult p = init(ID);
        add(ID, p, "t", 0);
        assertThat(end(ID, p, true)).isEqualTo(Errors.NONE);
        CompletableFuture<Errors> next = coordinator.addPartitions(ID, p.producerId(), p.producerEpoch(),
                Map.of("t", Set.of(1)));
        coordinator.runPending();
        markers.calls.get(0).done().completeExceptionally(new IllegalStateException("test"));
        coordinator.runPending();
        assertThat(next).isCompletedWithValue(Errors.CONCURRENT_TRANSACTIONS);
        // a request that waits at shutdown is answered too
        clock.advance(Transactions.MARKER_RETRY_MS);
        coordinator.runPending();
        assertThat(markers.calls).hasSize(2);
        CompletableFuture<Errors> atClose = coordinator.addPartitions(ID, p.producerId(), p.producerEpoch(),
                Map.of("t", Set.of(1)));
        coordinator.runPending();
        assertThat(atClose).isNotDone();
        coordinator.close();
        assertThat(atClose).isCompletedWithValue(Errors.NOT_COORDINATOR);
    }

    @Test
    void aCompleteStateThatDoesNotBecomeDurableHasItsMarkersWrittenAgain() {
        InitPidResult p = init(ID);
        add(ID, p, "t", 0);
        log.holdAppends(true);
        CompletableFuture<EndTxnResult> ended = coordinator.endTxn(ID, p.producerId(), p.producerEpoch(), true);
        coordinator.runPending();
        log.releaseHeld(); // PrepareCommit durable; the markers complete at once; CompleteCommit is held
        coordinator.runPending();
        assertThat(ended).isCompletedWithValue(new EndTxnResult(Errors.NONE, p.producerId(), p.producerEpoch()));
        assertThat(coordinator.state(ID).state()).isEqualTo(TxnState.COMPLETE_COMMIT);
        // the CompleteCommit is not made durable: back to PrepareCommit, and the markers are written again
        log.holdAppends(false);
        log.failHeld();
        coordinator.runPending();
        assertThat(coordinator.state(ID).state()).isEqualTo(TxnState.PREPARE_COMMIT);
        clock.advance(Transactions.MARKER_RETRY_MS);
        coordinator.runPending();
        assertThat(markers.calls).hasSize(2);
        assertThat(coordinator.state(ID).state()).isEqualTo(TxnState.COMPLETE_COMMIT);
    }

    @Test
    void nothingIsAnsweredBeforeTheRecordIsDurable() {
        InitPidResult p = init(ID);
        log.holdAppends(true);
        CompletableFuture<Errors> added = coordinator.addPartitions(ID, p.producerId(), p.producerEpoch(), Map.of("t", Set.of(0)));
        coordinator.runPending();
        assertThat(added).isNotDone();
        assertThat(coordinator.state(ID).state()).isEqualTo(TxnState.EMPTY);
        log.releaseHeld();
        coordinator.runPending();
        assertThat(added).isCompletedWithValue(Errors.NONE);
        log.holdAppends(false);
    }

    @Test
    void aFailedWriteChangesNothing() {
        InitPidResult p = init(ID);
        log.failAppends(true);
        assertThat(add(ID, p, "t", 0)).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
        log.failAppends(false);
        assertThat(coordinator.state(ID).state()).isEqualTo(TxnState.EMPTY);
        assertThat(add(ID, p, "t", 0)).isEqualTo(Errors.NONE);
    }

    @Test
    void wrongProducerOrEpochIsRefused() {
        InitPidResult p = init(ID);
        assertThat(run(coordinator.addPartitions(ID, p.producerId() + 1, p.producerEpoch(), Map.of("t", Set.of(0)))))
                .isEqualTo(Errors.INVALID_PRODUCER_ID_MAPPING);
        assertThat(run(coordinator.addPartitions("other", p.producerId(), p.producerEpoch(), Map.of("t", Set.of(0)))))
                .isEqualTo(Errors.INVALID_PRODUCER_ID_MAPPING);
        assertThat(run(coordinator.endTxn(ID, p.producerId(), (short) (p.producerEpoch() + 1), true)).error())
                .isEqualTo(Errors.PRODUCER_FENCED);
        assertThat(end(ID, p, true)).isEqualTo(Errors.INVALID_TXN_STATE); // Empty: nothing to end
    }

    @Test
    void aNewInstanceFencesTheOldOneAndAbortsItsTransaction() {
        InitPidResult old = init(ID);
        add(ID, old, "t", 0);
        // the new instance's InitProducerId: the ongoing transaction is aborted with a bumped epoch
        assertThat(run(coordinator.initProducerId(ID, TIMEOUT, -1, (short) -1)).error()).isEqualTo(Errors.CONCURRENT_TRANSACTIONS);
        assertThat(markers.calls).hasSize(1);
        assertThat(markers.calls.get(0).commit()).isFalse();
        assertThat(markers.calls.get(0).epoch()).isEqualTo((short) (old.producerEpoch() + 1));
        assertThat(coordinator.state(ID).state()).isEqualTo(TxnState.COMPLETE_ABORT);
        InitPidResult fresh = init(ID);
        assertThat(fresh.producerEpoch()).isEqualTo((short) (old.producerEpoch() + 2));
        // the zombie is fenced
        assertThat(add(ID, old, "t", 1)).isEqualTo(Errors.PRODUCER_FENCED);
        assertThat(end(ID, old, true)).isEqualTo(Errors.PRODUCER_FENCED);
        assertThat(add(ID, fresh, "t", 1)).isEqualTo(Errors.NONE);
    }

    @Test
    void kip360RecoveryBumpsTheEpochOfTheKnownProducerAndFencesAStrangerOne() {
        InitPidResult p = init(ID);
        add(ID, p, "t", 0);
        end(ID, p, false);
        InitPidResult bumped = run(coordinator.initProducerId(ID, TIMEOUT, p.producerId(), p.producerEpoch()));
        assertThat(bumped.error()).isEqualTo(Errors.NONE);
        assertThat(bumped.producerId()).isEqualTo(p.producerId());
        assertThat(bumped.producerEpoch()).isEqualTo((short) (p.producerEpoch() + 1));
        // a retry of the same request gets the same answer
        InitPidResult retry = run(coordinator.initProducerId(ID, TIMEOUT, p.producerId(), p.producerEpoch()));
        assertThat(retry.producerEpoch()).isEqualTo(bumped.producerEpoch());
        assertThat(run(coordinator.initProducerId(ID, TIMEOUT, p.producerId() + 7, (short) 0)).error())
                .isEqualTo(Errors.PRODUCER_FENCED);
    }

    @Test
    void anExhaustedEpochRollsToANewProducerId() {
        InitPidResult p = init(ID);
        for (int i = 0; i < Short.MAX_VALUE - 1; i++) {
            p = init(ID);
        }
        assertThat(p.producerEpoch()).isEqualTo((short) (Short.MAX_VALUE - 1));
        InitPidResult rolled = init(ID);
        assertThat(rolled.producerId()).isNotEqualTo(p.producerId());
        assertThat(rolled.producerEpoch()).isZero();
    }

    @Test
    void aTransactionPastItsTimeoutIsAbortedAndItsProducerFenced() {
        InitPidResult p = run(coordinator.initProducerId(ID, 20_000, -1, (short) -1));
        add(ID, p, "t", 0);
        clock.advance(10_000);
        coordinator.runPending();
        assertThat(coordinator.state(ID).state()).isEqualTo(TxnState.ONGOING);
        clock.advance(20_000);
        coordinator.runPending();
        assertThat(coordinator.state(ID).state()).isEqualTo(TxnState.COMPLETE_ABORT);
        assertThat(markers.calls).singleElement().satisfies(c -> assertThat(c.commit()).isFalse());
        assertThat(end(ID, p, true)).isEqualTo(Errors.PRODUCER_FENCED);
    }

    @Test
    void anIdleTransactionalIdExpiresAndAnOpenOneDoesNot() {
        config = config.withTimes(900_000, 100_000, 10_000, 50_000);
        coordinator.close();
        coordinator = start();
        InitPidResult idle = init("idle");
        InitPidResult busy = run(coordinator.initProducerId("busy", 900_000, -1, (short) -1));
        add("busy", busy, "t", 0);
        clock.advance(150_000);
        coordinator.runPending();
        assertThat(coordinator.state("idle")).isNull();
        assertThat(coordinator.state("busy").state()).isEqualTo(TxnState.ONGOING);
        assertThat(idle.error()).isEqualTo(Errors.NONE);
        restart();
        assertThat(coordinator.state("idle")).isNull();
        assertThat(init("idle").producerId()).isNotEqualTo(idle.producerId());
    }

    @Test
    void replayRestoresEveryStateAndCompletesPreparedTransactions() {
        InitPidResult empty = init("empty");
        InitPidResult ongoing = init("ongoing");
        add("ongoing", ongoing, "t", 0, 3);
        InitPidResult committed = init("committed");
        add("committed", committed, "t", 1);
        end("committed", committed, true);
        markers.autoComplete = false;
        InitPidResult prepared = init("prepared");
        add("prepared", prepared, "u", 0);
        end("prepared", prepared, true);
        assertThat(coordinator.state("prepared").state()).isEqualTo(TxnState.PREPARE_COMMIT);
        int before = markers.calls.size();
        markers.autoComplete = true;
        restart();
        assertThat(coordinator.state("empty").producerEpoch()).isEqualTo(empty.producerEpoch());
        assertThat(coordinator.state("ongoing").state()).isEqualTo(TxnState.ONGOING);
        assertThat(coordinator.state("ongoing").partitions().get("t")).containsExactly(0, 3);
        assertThat(coordinator.state("committed").state()).isEqualTo(TxnState.COMPLETE_COMMIT);
        // the prepared commit's markers are written again after the restart, then it completes
        assertThat(markers.calls).hasSize(before + 1);
        assertThat(markers.calls.get(before).commit()).isTrue();
        assertThat(coordinator.state("prepared").state()).isEqualTo(TxnState.COMPLETE_COMMIT);
        assertThat(coordinator.inOngoingTransaction(ongoing.producerId(), ongoing.producerEpoch(), "t", 3)).isTrue();
        assertThat(coordinator.replaySkipped()).isZero();
    }

    @Test
    void anOngoingTransactionWithOffsetsStaysOpenAtRestart() {
        // its transactional offsets are in __consumer_offsets (the group coordinator loads them
        // as pending), so nothing forces an abort: the producer goes on and commits
        InitPidResult ctp = init("ctp");
        add("ctp", ctp, "t", 1);
        add("ctp", ctp, "__consumer_offsets", 7);
        restart();
        assertThat(coordinator.state("ctp").state()).isEqualTo(TxnState.ONGOING);
        assertThat(markers.calls).isEmpty();
        assertThat(end("ctp", ctp, true)).isEqualTo(Errors.NONE);
        assertThat(markers.calls).singleElement().satisfies(c -> assertThat(c.commit()).isTrue());
    }

    @Test
    void failedMarkersAreWrittenAgain() {
        markers.fail = true;
        InitPidResult p = init(ID);
        add(ID, p, "t", 0);
        end(ID, p, true);
        assertThat(coordinator.state(ID).state()).isEqualTo(TxnState.PREPARE_COMMIT);
        clock.advance(Transactions.MARKER_RETRY_MS);
        coordinator.runPending();
        assertThat(markers.calls).hasSize(2);
        // the second failure in a row waits twice as long
        clock.advance(Transactions.MARKER_RETRY_MS);
        coordinator.runPending();
        assertThat(markers.calls).hasSize(2);
        markers.fail = false;
        clock.advance(Transactions.MARKER_RETRY_MS);
        coordinator.runPending();
        assertThat(markers.calls).hasSize(3);
        assertThat(coordinator.state(ID).state()).isEqualTo(TxnState.COMPLETE_COMMIT);
        assertThat(Transactions.markerRetryDelay(20)).isEqualTo(Transactions.MAX_MARKER_RETRY_MS);
    }

    @Test
    void describeAndListShowTheTransactions() {
        InitPidResult p = init(ID);
        add(ID, p, "t", 0);
        init("other");
        List<TxnDescription> d = run(coordinator.describe(List.of(ID, "missing")));
        assertThat(d.get(0).state()).isEqualTo("Ongoing");
        assertThat(d.get(0).partitions()).containsOnlyKeys("t");
        assertThat(d.get(1).error()).isEqualTo(Errors.TRANSACTIONAL_ID_NOT_FOUND);
        assertThat(run(coordinator.list(Set.of("Ongoing"), Set.of(), -1)).transactions()).extracting(TxnDescription::transactionalId)
                .containsExactly(ID);
        assertThat(run(coordinator.list(Set.of(), Set.of(), -1)).transactions()).hasSize(2);
        clock.advance(5_000);
        assertThat(run(coordinator.list(Set.of(), Set.of(), 4_000)).transactions()).hasSize(1);
        assertThat(run(coordinator.list(Set.of(), Set.of(), 6_000)).transactions()).isEmpty();
    }

    @Test
    void afterCloseRequestsAreToldToFindTheCoordinatorAgain() {
        coordinator.close();
        assertThat(coordinator.initProducerId(ID, TIMEOUT, -1, (short) -1).join().error()).isEqualTo(Errors.NOT_COORDINATOR);
    }
}
