package io.brook.coordinator.txn;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.InMemoryCoordinatorLog;
import io.brook.coordinator.txn.TransactionCoordinatorTest.RecordingMarkers;
import io.brook.testkit.MutableClock;
import io.brook.wire.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Transactions V2 (KIP-890 part 2) in the coordinator, on virtual time over an in-memory log:
 * partitions added by the partition side, the epoch bumped by every end, the producer id rolled
 * over when the epoch is exhausted, retries and fencing, and the version 1 values replayed.
 */
class TransactionsV2Test {

    private static final String ID = "txn-v2";
    private static final int TIMEOUT = 60_000;
    private static final short V2 = TransactionCoordinator.CLIENT_VERSION_V2;

    private final MutableClock clock = new MutableClock(1_000_000);
    private final InMemoryCoordinatorLog log = new InMemoryCoordinatorLog();
    private final AtomicLong nextPid = new AtomicLong(1000);
    private final RecordingMarkers markers = new RecordingMarkers();
    private final TxnCoordinatorConfig config = TxnCoordinatorConfig.defaults().withPartitions(4);
    private TransactionCoordinator coordinator = start();

    private TransactionCoordinator start() {
        TransactionCoordinator c = new TransactionCoordinator(config, log, clock, nextPid::getAndIncrement, markers, false);
        c.start();
        c.runPending();
        return c;
    }

    private void restart() {
        coordinator.close();
        coordinator = start();
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

    private InitPidResult init() {
        return run(coordinator.initProducerId(ID, TIMEOUT, -1, (short) -1));
    }

    private Errors addV2(long pid, short epoch, String topic, int... partitions) {
        Set<Integer> ps = new TreeSet<>();
        for (int x : partitions) ps.add(x);
        return run(coordinator.addPartitions(ID, pid, epoch, Map.of(topic, ps), V2));
    }

    private EndTxnResult endV2(long pid, short epoch, boolean commit) {
        return run(coordinator.endTxn(ID, pid, epoch, commit, V2));
    }

    @Test
    void everyEndBumpsTheEpochAndTheMarkersCarryTheBumpedEpoch() {
        InitPidResult p = init();
        long pid = p.producerId();
        short epoch = p.producerEpoch();
        for (boolean commit : List.of(true, false, true)) {
            assertThat(addV2(pid, epoch, "t", 0)).isEqualTo(Errors.NONE);
            assertThat(coordinator.state(ID).clientVersion()).isEqualTo(V2);
            EndTxnResult r = endV2(pid, epoch, commit);
            assertThat(r.error()).isEqualTo(Errors.NONE);
            assertThat(r.producerId()).isEqualTo(pid);
            assertThat(r.producerEpoch()).isEqualTo((short) (epoch + 1));
            RecordingMarkers.Call marker = markers.calls.get(markers.calls.size() - 1);
            assertThat(marker.epoch()).isEqualTo((short) (epoch + 1));
            assertThat(marker.commit()).isEqualTo(commit);
            assertThat(coordinator.state(ID).state()).isEqualTo(commit ? TxnState.COMPLETE_COMMIT : TxnState.COMPLETE_ABORT);
            // the old epoch is fenced on the partition side as soon as the end is prepared
            assertThat(coordinator.verifyAppend(pid, epoch, "t", 0)).isEqualTo(Errors.INVALID_PRODUCER_EPOCH);
            epoch = r.producerEpoch();
        }
        assertThat(coordinator.state(ID).producerEpoch()).isEqualTo((short) 3);
    }

    @Test
    void aClassicEndKeepsTheEpoch() {
        InitPidResult p = init();
        assertThat(run(coordinator.addPartitions(ID, p.producerId(), p.producerEpoch(), Map.of("t", Set.of(0)))))
                .isEqualTo(Errors.NONE);
        EndTxnResult r = run(coordinator.endTxn(ID, p.producerId(), p.producerEpoch(), true));
        assertThat(r.error()).isEqualTo(Errors.NONE);
        assertThat(coordinator.state(ID).producerEpoch()).isEqualTo(p.producerEpoch());
        assertThat(markers.calls.get(0).epoch()).isEqualTo(p.producerEpoch());
        assertThat(coordinator.state(ID).clientVersion()).isZero();
    }

    @Test
    void aRetriedEndIsAnsweredAsTheFirstAndAStaleEpochIsFenced() {
        InitPidResult p = init();
        addV2(p.producerId(), p.producerEpoch(), "t", 0);
        markers.autoComplete = false;
        EndTxnResult first = endV2(p.producerId(), p.producerEpoch(), true);
        assertThat(first.error()).isEqualTo(Errors.NONE);
        // while the markers are in flight the retry is told to wait
        assertThat(endV2(p.producerId(), p.producerEpoch(), true).error()).isEqualTo(Errors.CONCURRENT_TRANSACTIONS);
        markers.calls.get(0).done().complete(null);
        coordinator.runPending();
        EndTxnResult retry = endV2(p.producerId(), p.producerEpoch(), true);
        assertThat(retry).isEqualTo(first);
        // an abort retried as a commit is a state error; an epoch two behind is a zombie
        assertThat(endV2(p.producerId(), p.producerEpoch(), false).error()).isEqualTo(Errors.INVALID_TXN_STATE);
        addV2(p.producerId(), first.producerEpoch(), "t", 0);
        endV2(p.producerId(), first.producerEpoch(), false);
        markers.calls.get(1).done().complete(null);
        coordinator.runPending();
        assertThat(endV2(p.producerId(), p.producerEpoch(), false).error()).isEqualTo(Errors.PRODUCER_FENCED);
        // a commit at the current epoch with nothing open is not a retry: fenced, as in Kafka
        assertThat(endV2(p.producerId(), coordinator.state(ID).producerEpoch(), true).error())
                .isEqualTo(Errors.PRODUCER_FENCED);
    }

    @Test
    void theAbortOfTheNextTransactionWhileTheMarkersOfTheLastAreWrittenWaitsForThem() {
        InitPidResult p = init();
        addV2(p.producerId(), p.producerEpoch(), "t", 0);
        markers.autoComplete = false;
        EndTxnResult committed = endV2(p.producerId(), p.producerEpoch(), true);
        assertThat(committed.error()).isEqualTo(Errors.NONE);
        // the producer's next transaction could add no partition yet (the coordinator is busy
        // ending the last one) and is aborted at the bumped epoch: not a fenced producer
        CompletableFuture<EndTxnResult> abort = coordinator.endTxn(ID, p.producerId(), committed.producerEpoch(), false, V2);
        coordinator.runPending();
        assertThat(abort).isNotDone();
        markers.calls.get(0).done().complete(null);
        coordinator.runPending();
        assertThat(abort).isDone();
        assertThat(abort.join())
                .isEqualTo(new EndTxnResult(Errors.NONE, p.producerId(), (short) (committed.producerEpoch() + 1)));
        assertThat(coordinator.state(ID).state()).isEqualTo(TxnState.COMPLETE_ABORT);
        // the producer goes on at the epoch it was given
        assertThat(addV2(p.producerId(), abort.join().producerEpoch(), "t", 0)).isEqualTo(Errors.NONE);
    }

    @Test
    void anAbortOfATransactionWhosePartitionsWereNeverAddedBumpsTheEpoch() {
        InitPidResult p = init();
        EndTxnResult r = endV2(p.producerId(), p.producerEpoch(), false);
        assertThat(r).isEqualTo(new EndTxnResult(Errors.NONE, p.producerId(), (short) (p.producerEpoch() + 1)));
        assertThat(coordinator.state(ID).state()).isEqualTo(TxnState.COMPLETE_ABORT);
        assertThat(markers.calls).isEmpty();
        EndTxnResult again = endV2(p.producerId(), r.producerEpoch(), false);
        assertThat(again.producerEpoch()).isEqualTo((short) (p.producerEpoch() + 2));
        // a classic client gets Kafka's classic answer
        assertThat(run(coordinator.endTxn(ID, p.producerId(), again.producerEpoch(), false)).error())
                .isEqualTo(Errors.PRODUCER_FENCED);
    }

    @Test
    void theEndThatExhaustsTheEpochRollsOverToANewProducerId() {
        // an id whose epoch is one below the last usable one, written by an earlier V2 transaction
        TxnSnapshot nearEnd = new TxnSnapshot(7L, (short) (Short.MAX_VALUE - 2), (short) -1, TIMEOUT,
                TxnState.COMPLETE_COMMIT, TxnSnapshot.NONE, 5L, 5L, -1L, -1L, V2);
        appendValue(nearEnd);
        restart();
        short epoch = (short) (Short.MAX_VALUE - 2);
        addV2(7L, epoch, "t", 0);
        EndTxnResult r = endV2(7L, epoch, true);
        assertThat(r.producerEpoch()).isEqualTo((short) (Short.MAX_VALUE - 1));
        epoch = r.producerEpoch();
        addV2(7L, epoch, "t", 1);
        markers.autoComplete = false;
        EndTxnResult rolled = endV2(7L, epoch, false);
        assertThat(rolled.error()).isEqualTo(Errors.NONE);
        assertThat(rolled.producerId()).isEqualTo(1000L);
        assertThat(rolled.producerEpoch()).isZero();
        // the markers close the old producer id at the last epoch
        RecordingMarkers.Call marker = markers.calls.get(markers.calls.size() - 1);
        assertThat(marker.pid()).isEqualTo(7L);
        assertThat(marker.epoch()).isEqualTo(Short.MAX_VALUE);
        assertThat(coordinator.state(ID).nextProducerId()).isEqualTo(1000L);
        // the producer already on its new id must wait until the old transaction is complete
        CompletableFuture<Errors> early = coordinator.addPartitions(ID, 1000L, (short) 0, Map.of("t", Set.of(0)),
                TransactionCoordinator.CLIENT_VERSION_V2);
        // and so must the end of its next transaction, aborted before any partition was added
        CompletableFuture<EndTxnResult> earlyEnd = coordinator.endTxn(ID, 1000L, (short) 0, false, V2);
        coordinator.runPending();
        assertThat(early).isNotDone();
        assertThat(earlyEnd).isNotDone();
        markers.autoComplete = true;
        restart(); // the prepared roll-over survives a restart, and completes
        assertThat(early).isCompletedWithValue(Errors.NOT_COORDINATOR);
        assertThat(earlyEnd).isCompletedWithValue(EndTxnResult.of(Errors.NOT_COORDINATOR));
        TxnSnapshot done = coordinator.state(ID);
        assertThat(done.state()).isEqualTo(TxnState.COMPLETE_ABORT);
        assertThat(done.producerId()).isEqualTo(1000L);
        assertThat(done.producerEpoch()).isZero();
        assertThat(done.previousProducerId()).isEqualTo(7L);
        assertThat(done.nextProducerId()).isEqualTo(-1L);
        // a retry of the end from the old id is recognised
        EndTxnResult retry = endV2(7L, (short) (Short.MAX_VALUE - 1), false);
        assertThat(retry).isEqualTo(new EndTxnResult(Errors.NONE, 1000L, (short) 0));
        assertThat(addV2(1000L, (short) 0, "t", 0)).isEqualTo(Errors.NONE);
        assertThat(endV2(1000L, (short) 0, true).producerEpoch()).isEqualTo((short) 1);
    }

    @Test
    void aNewInstanceFencesAV2ProducerWhoseOwnEndIsThenRefused() {
        InitPidResult p = init();
        addV2(p.producerId(), p.producerEpoch(), "t", 0);
        InitPidResult again = init();
        assertThat(again.error()).isEqualTo(Errors.CONCURRENT_TRANSACTIONS);
        RecordingMarkers.Call abort = markers.calls.get(0);
        assertThat(abort.commit()).isFalse();
        assertThat(abort.epoch()).isGreaterThan(p.producerEpoch());
        assertThat(endV2(p.producerId(), p.producerEpoch(), true).error()).isEqualTo(Errors.PRODUCER_FENCED);
        assertThat(endV2(p.producerId(), p.producerEpoch(), false).error()).isEqualTo(Errors.PRODUCER_FENCED);
        InitPidResult next = init();
        assertThat(next.error()).isEqualTo(Errors.NONE);
        assertThat(next.producerEpoch()).isGreaterThan(abort.epoch());
    }

    @Test
    void aTimedOutV2TransactionIsAbortedAndItsProducerFenced() {
        InitPidResult p = init();
        addV2(p.producerId(), p.producerEpoch(), "t", 0);
        clock.advance(TIMEOUT + config.abortTimedOutIntervalMs() + 1);
        coordinator.runPending();
        assertThat(coordinator.state(ID).state()).isEqualTo(TxnState.COMPLETE_ABORT);
        assertThat(endV2(p.producerId(), p.producerEpoch(), false).error()).isEqualTo(Errors.PRODUCER_FENCED);
        assertThat(addV2(p.producerId(), p.producerEpoch(), "t", 0)).isEqualTo(Errors.PRODUCER_FENCED);
        assertThat(coordinator.verifyAppend(p.producerId(), p.producerEpoch(), "t", 0)).isEqualTo(Errors.INVALID_PRODUCER_EPOCH);
    }

    @Test
    void valuesAreWrittenInVersionOneAndReplayedWithTheirV2Fields() {
        InitPidResult p = init();
        addV2(p.producerId(), p.producerEpoch(), "t", 0, 1);
        assertThat(lastValueVersion()).isEqualTo(TxnLogRecords.VALUE_VERSION_FLEXIBLE);
        restart();
        TxnSnapshot s = coordinator.state(ID);
        assertThat(s.state()).isEqualTo(TxnState.ONGOING);
        assertThat(s.clientVersion()).isEqualTo(V2);
        assertThat(s.partitions().get("t")).containsExactly(0, 1);
        assertThat(coordinator.inOngoingTransaction(p.producerId(), p.producerEpoch(), "t", 1)).isTrue();
        EndTxnResult r = endV2(p.producerId(), p.producerEpoch(), true);
        assertThat(r.producerEpoch()).isEqualTo((short) (p.producerEpoch() + 1));
    }

    @Test
    void versionZeroValuesOfAnOlderDataDirectoryAreReplayedAndLevelZeroKeepsWritingThem() {
        TxnSnapshot old = new TxnSnapshot(9L, (short) 4, (short) -1, TIMEOUT, TxnState.EMPTY, TxnSnapshot.NONE, -1L, 5L)
                .withPartitions(Map.of("t", Set.of(2)), 6L);
        log.append(config.partitionFor(ID), List.of(new CoordinatorRecord(config.partitionFor(ID), TxnLogRecords.key(ID),
                TxnLogRecords.value(old))));
        restart();
        coordinator.transactionVersion((short) 0);
        TxnSnapshot s = coordinator.state(ID);
        assertThat(s.state()).isEqualTo(TxnState.ONGOING);
        assertThat(s.clientVersion()).isZero();
        // an EndTxn v5 ends the transaction found open V2 style (bumped epoch); the value stays version 0
        EndTxnResult r = endV2(9L, (short) 4, true);
        assertThat(r.error()).isEqualTo(Errors.NONE);
        assertThat(lastValueVersion()).isEqualTo(TxnLogRecords.VALUE_VERSION);
        assertThat(markers.calls.get(0).epoch()).isEqualTo((short) 5);
    }

    private void appendValue(TxnSnapshot s) {
        int partition = config.partitionFor(ID);
        log.append(partition, List.of(new CoordinatorRecord(partition, TxnLogRecords.key(ID),
                TxnLogRecords.value(s, TxnLogRecords.VALUE_VERSION_FLEXIBLE))));
    }

    private short lastValueVersion() {
        int partition = config.partitionFor(ID);
        List<CoordinatorRecord> all = new java.util.ArrayList<>();
        log.replay(partition, 1 << 20, all::add);
        byte[] v = all.get(all.size() - 1).value();
        return (short) (((v[0] & 0xff) << 8) | (v[1] & 0xff));
    }
}
