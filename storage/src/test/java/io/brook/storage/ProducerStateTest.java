package io.brook.storage;

import io.brook.testkit.Await;
import io.brook.wire.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Idempotent-producer rules (KIP-98, as Kafka's ProducerAppendInfo applies them), through the log's append path. */
class ProducerStateTest {
    private static final long PID = 4242L;

    @TempDir
    Path tmp;
    LogFixture fx;
    Log log;

    @AfterEach
    void tearDown() throws Exception {
        fx.close();
    }

    private Log open(Map<String, ?> settings) throws Exception {
        fx = new LogFixture(tmp, settings);
        log = fx.open();
        return log;
    }

    private AppendResult send(long pid, int epoch, int seq, int count) {
        return log.append(Batches.idempotent(pid, (short) epoch, seq, count, 1000), 0);
    }

    @Test
    void shouldRefuseATransactionsV2MarkerNotAboveTheEpochOfTheOpenTransaction() throws Exception {
        open(Map.of());
        assertThat(log.append(Batches.producerBatch(PID, (short) 3, 0, 2, 1000, true), 0).error()).isEqualTo(Errors.NONE);
        // a V2 marker must carry the bumped epoch; one at the data's epoch is stale
        assertThat(log.appendMarker(Batches.commitMarker(PID, (short) 3, 1000), 0, true).error())
                .isEqualTo(Errors.INVALID_PRODUCER_EPOCH);
        assertThat(log.appendMarker(Batches.commitMarker(PID, (short) 2, 1000), 0, true).error())
                .isEqualTo(Errors.INVALID_PRODUCER_EPOCH);
        long end = log.logEndOffset();
        assertThat(log.appendMarker(Batches.commitMarker(PID, (short) 4, 1000), 0, true).error()).isEqualTo(Errors.NONE);
        assertThat(log.logEndOffset()).isEqualTo(end + 1);
        // the retry of the same marker closes nothing and is harmless
        assertThat(log.appendMarker(Batches.commitMarker(PID, (short) 4, 1000), 0, true).error()).isEqualTo(Errors.NONE);
        // the old epoch is fenced; the next transaction starts at the bumped epoch from sequence 0
        assertThat(log.append(Batches.producerBatch(PID, (short) 3, 2, 1, 1000, true), 0).error())
                .isEqualTo(Errors.INVALID_PRODUCER_EPOCH);
        assertThat(log.append(Batches.producerBatch(PID, (short) 4, 0, 1, 1000, true), 0).error()).isEqualTo(Errors.NONE);
        // a classic marker at the epoch of the open transaction is what classic transactions write
        assertThat(log.appendMarker(Batches.abortMarker(PID, (short) 4, 1000), 0, false).error()).isEqualTo(Errors.NONE);
    }

    @Test
    void shouldAcceptAnySequenceWithoutState() throws Exception {
        open(Map.of());
        assertThat(send(PID, 3, 42, 2).error()).isEqualTo(Errors.NONE);
        assertThat(send(PID, 3, 44, 1).error()).isEqualTo(Errors.NONE);
    }

    @Test
    void shouldReturnOriginalOffsetsForDuplicateWithoutWritingIt() throws Exception {
        open(Map.of());
        send(PID, 0, 0, 3);
        AppendResult second = send(PID, 0, 3, 2);
        send(PID, 0, 5, 1);
        long end = log.logEndOffset();
        AppendResult dup = send(PID, 0, 3, 2);
        assertThat(dup.error()).isEqualTo(Errors.NONE);
        assertThat(dup.duplicate()).isTrue();
        assertThat(dup.baseOffset()).isEqualTo(second.baseOffset());
        assertThat(dup.lastOffset()).isEqualTo(second.lastOffset());
        assertThat(log.logEndOffset()).isEqualTo(end);
    }

    @Test
    void shouldRememberOnlyTheLastFiveBatches() throws Exception {
        open(Map.of());
        for (int i = 0; i < 6; i++) {
            send(PID, 0, i, 1);
        }
        assertThat(send(PID, 0, 1, 1).duplicate()).isTrue();
        AppendResult tooOld = send(PID, 0, 0, 1);
        assertThat(tooOld.error()).isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
    }

    @Test
    void shouldRejectGapAndAcceptNextInSequence() throws Exception {
        open(Map.of());
        send(PID, 0, 0, 2);
        AppendResult gap = send(PID, 0, 3, 1);
        assertThat(gap.error()).isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
        assertThat(log.logEndOffset()).isEqualTo(2);
        assertThat(send(PID, 0, 2, 1).error()).isEqualTo(Errors.NONE);
    }

    @Test
    void shouldRejectStaleEpochAndRequireZeroAfterBump() throws Exception {
        open(Map.of());
        send(PID, 1, 0, 2);
        assertThat(send(PID, 0, 2, 1).error()).isEqualTo(Errors.INVALID_PRODUCER_EPOCH);
        assertThat(send(PID, 2, 5, 1).error()).isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
        assertThat(send(PID, 2, 0, 1).error()).isEqualTo(Errors.NONE);
        assertThat(send(PID, 1, 2, 1).error()).isEqualTo(Errors.INVALID_PRODUCER_EPOCH);
        assertThat(send(PID, 2, 1, 1).error()).isEqualTo(Errors.NONE);
    }

    @Test
    void shouldWrapSequenceAfterIntegerMax() throws Exception {
        open(Map.of());
        assertThat(send(PID, 0, Integer.MAX_VALUE - 1, 2).error()).isEqualTo(Errors.NONE);
        assertThat(send(PID, 0, 0, 1).error()).isEqualTo(Errors.NONE);
        assertThat(send(PID, 0, 2, 1).error()).isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
    }

    @Test
    void shouldKeepProducersApart() throws Exception {
        open(Map.of());
        send(1, 0, 0, 1);
        send(2, 0, 10, 1);
        assertThat(send(1, 0, 1, 1).error()).isEqualTo(Errors.NONE);
        assertThat(send(2, 0, 11, 1).error()).isEqualTo(Errors.NONE);
        assertThat(send(2, 0, 1, 1).error()).isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
    }

    @Test
    void shouldRestoreStateFromSnapshotAfterCleanRestart() throws Exception {
        open(Map.of());
        send(PID, 0, 0, 2);
        AppendResult b = send(PID, 0, 2, 2);
        log.flush();
        log = fx.reopen();
        AppendResult dup = send(PID, 0, 2, 2);
        assertThat(dup.duplicate()).isTrue();
        assertThat(dup.baseOffset()).isEqualTo(b.baseOffset());
        assertThat(send(PID, 0, 7, 1).error()).isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
        assertThat(send(PID, 0, 4, 1).error()).isEqualTo(Errors.NONE);
    }

    @Test
    void shouldRebuildStateFromLogAfterCrashWithoutSnapshot() throws Exception {
        open(Map.of(LogConfig.SEGMENT_BYTES, 300));
        for (int i = 0; i < 10; i++) {
            send(PID, 0, i * 2, 2);
            log.flush();
        }
        log = fx.crashAndReopenAfter(fx::deleteProducerSnapshots, 0);
        assertThat(send(PID, 0, 18, 2).duplicate()).isTrue();
        assertThat(send(PID, 0, 21, 1).error()).isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
        assertThat(send(PID, 0, 20, 1).error()).isEqualTo(Errors.NONE);
    }

    @Test
    void shouldRebuildStateFromOlderSnapshotPlusLogAfterCrash() throws Exception {
        open(Map.of(LogConfig.SEGMENT_BYTES, 300));
        for (int i = 0; i < 10; i++) {
            send(PID, 0, i * 2, 2);
            log.flush();
        }
        // Rolls leave their snapshots to the scheduler's thread.
        Await.until("a producer snapshot", () ->
                fx.dir.toFile().list((d, n) -> n.endsWith(ProducerStateManager.SNAPSHOT_SUFFIX)).length > 0);
        log = fx.crashAndReopenAfter(() -> { }, 0);
        assertThat(send(PID, 0, 16, 2).duplicate()).isTrue();
        assertThat(send(PID, 0, 20, 1).error()).isEqualTo(Errors.NONE);
    }

    @Test
    void shouldForgetProducerWhoseBatchesWereDeleted() throws Exception {
        open(Map.of());
        send(PID, 0, 0, 2);
        log.flush();
        log.deleteRecordsBefore(2);
        assertThat(send(PID, 0, 17, 1).error()).isEqualTo(Errors.NONE);
    }

    @Test
    void shouldHoldLastStableOffsetAtOpenTransactionUntilMarker() throws Exception {
        open(Map.of());
        log.append(Batches.batch(1000, 2, "k"), 0);
        AppendResult txn = log.append(Batches.producerBatch(PID, (short) 0, 0, 2, 1000, true), 0);
        log.append(Batches.batch(1000, 2, "k"), 0);
        log.flush();
        assertThat(log.lastStableOffset()).isEqualTo(txn.baseOffset());
        assertThat(log.highWatermark()).isEqualTo(6);
        assertThat(Batches.records(log.read(0, 1 << 20, true, true).records())).extracting(Batches.Rec::offset)
                .containsExactly(0L, 1L);
        assertThat(log.read(2, 1 << 20, true, true).records()).isNull();
        assertThat(Batches.records(log.read(0, 1 << 20, true, false).records())).hasSize(6);
        assertThat(log.append(Batches.commitMarker(PID, (short) 0, 1000), 0).error()).isEqualTo(Errors.NONE);
        log.flush();
        assertThat(log.lastStableOffset()).isEqualTo(7);
        assertThat(log.offsetForTimestamp(Log.LATEST_TIMESTAMP, true).offset()).isEqualTo(7);
    }

    @Test
    void shouldExpireIdleProducersSoAnySequenceIsAcceptedAgain() throws Exception {
        open(Map.of());
        send(PID, 0, 0, 2);
        assertThat(log.expireProducers(1000 + 86_400_000L, 86_400_000L)).isZero();
        assertThat(send(PID, 0, 9, 1).error()).isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
        assertThat(log.expireProducers(1001 + 86_400_000L, 86_400_000L)).isEqualTo(1);
        assertThat(send(PID, 0, 9, 1).error()).isEqualTo(Errors.NONE);
    }

    @Test
    void shouldRefuseNewProducersAtTheBoundWithoutForgettingTheOnesItHolds() throws Exception {
        open(Map.of());
        log.producers.setMaxProducers(2);
        assertThat(send(1, 0, 0, 1).error()).isEqualTo(Errors.NONE);
        AppendResult acked = send(2, 0, 0, 1);
        long end = log.logEndOffset();
        AppendResult third = send(3, 0, 0, 1);
        assertThat(third.error()).as("retriable: the producer tries again").isEqualTo(Errors.NOT_ENOUGH_REPLICAS);
        assertThat(third.errorMessage()).contains("brook.max.producer.ids.per.partition");
        assertThat(log.logEndOffset()).isEqualTo(end);
        // a producer held keeps its duplicate window: its retry is still recognised
        AppendResult retry = send(2, 0, 0, 1);
        assertThat(retry.duplicate()).isTrue();
        assertThat(retry.baseOffset()).isEqualTo(acked.baseOffset());
        assertThat(send(1, 0, 1, 1).error()).isEqualTo(Errors.NONE);
        assertThat(send(-1, -1, -1, 1).error()).as("not idempotent: no state").isEqualTo(Errors.NONE);
        // once idle state expires, room is made
        assertThat(log.expireProducers(2000 + 86_400_000L, 86_400_000L)).isEqualTo(2);
        assertThat(send(3, 0, 0, 1).error()).isEqualTo(Errors.NONE);
    }

    @Test
    void shouldExpireProducersWhateverTimestampTheirBatchesCarry() throws Exception {
        // future timestamps are refused by default (an hour ahead at most); a topic may allow them
        open(Map.of(LogConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS, Long.MAX_VALUE));
        long now = 200_000_000L;
        assertThat(log.append(Batches.idempotent(7L, (short) 0, 0, 1, -1L), 0).error()).isEqualTo(Errors.NONE);
        assertThat(log.append(Batches.idempotent(8L, (short) 0, 0, 1, Long.MAX_VALUE / 2), 0).error())
                .isEqualTo(Errors.NONE);
        // no timestamp: as old as can be (Kafka expires it too); the future: counted from now
        assertThat(log.expireProducers(now, 86_400_000L)).isEqualTo(1);
        assertThat(log.producers.entry(7L)).isNull();
        assertThat(log.expireProducers(now + 86_400_000L, 86_400_000L)).isZero();
        assertThat(log.expireProducers(now + 86_400_001L, 86_400_000L)).isEqualTo(1);
        assertThat(log.producers.entry(8L)).isNull();
    }

    @Test
    void shouldListAbortedTransactionsForReadCommittedAndKeepThemAcrossRestarts() throws Exception {
        open(Map.of(LogConfig.SEGMENT_BYTES, 400));
        log.append(Batches.batch(1000, 2, "k"), 0);                                        // 0-1
        log.append(Batches.producerBatch(PID, (short) 0, 0, 2, 1000, true), 0);           // 2-3
        log.append(Batches.producerBatch(9, (short) 0, 0, 1, 1000, true), 0);             // 4
        log.append(Batches.abortMarker(PID, (short) 0, 1000), 0);                          // 5
        log.append(Batches.commitMarker(9, (short) 0, 1000), 0);                           // 6
        for (int i = 0; i < 6; i++) {
            log.append(Batches.batch(1000, 2, "k"), 0);                                    // 7-18
        }
        log.append(Batches.producerBatch(PID, (short) 0, 2, 1, 1000, true), 0);           // 19
        log.append(Batches.abortMarker(PID, (short) 0, 1000), 0);                          // 20
        log.flush();
        assertThat(log.abortedTransactions(0, 100)).containsExactly(new AbortedTransaction(PID, 2, 5),
                new AbortedTransaction(PID, 19, 20));
        assertThat(log.abortedTransactions(6, 19)).isEmpty();
        assertThat(log.abortedTransactions(5, 6)).containsExactly(new AbortedTransaction(PID, 2, 5));
        assertThat(log.lastStableOffset()).isEqualTo(21);
        log = fx.reopen();
        assertThat(log.abortedTransactions(0, 100)).hasSize(2);
        log = fx.crashAndReopenAfter(() -> {
            Files.deleteIfExists(fx.dir.resolve(TransactionIndex.FILE));
            fx.deleteProducerSnapshots();
        }, 0);
        // Without the file and the snapshots, replaying the log finds every marker again.
        assertThat(log.abortedTransactions(0, 100)).containsExactly(new AbortedTransaction(PID, 2, 5),
                new AbortedTransaction(PID, 19, 20));
        log.truncateTo(20);
        assertThat(log.abortedTransactions(0, 100)).doesNotContain(new AbortedTransaction(PID, 19, 20));
        assertThat(log.lastStableOffset()).isEqualTo(19);
    }

    /** A transactional batch without a sequence, as Kafka's group coordinator writes a TxnOffsetCommit. */
    private static java.nio.ByteBuffer coordinatorBatch(short epoch) {
        return new io.brook.wire.record.RecordBatchBuilder(io.brook.wire.record.Compression.NONE)
                .producer(PID, epoch, io.brook.wire.record.RecordBatch.NO_SEQUENCE).transactional(true)
                .append(1000L, new byte[]{1}, new byte[]{2}).build();
    }

    @Test
    void aCoordinatorWritesTransactionalBatchesWithoutSequenceButWithItsEpochChecked() throws Exception {
        open(Map.of());
        // a client's transactional batch needs a sequence; a coordinator's (Kafka's TxnOffsetCommit) has none
        assertThat(log.append(coordinatorBatch((short) 2), 0).error())
                .isEqualTo(Errors.INVALID_RECORD);
        AppendResult first = log.appendAsCoordinator(coordinatorBatch((short) 2), 0);
        assertThat(first.error()).isEqualTo(Errors.NONE);
        assertThat(log.appendAsCoordinator(coordinatorBatch((short) 2), 0).error())
                .isEqualTo(Errors.NONE);
        log.flush();
        assertThat(log.lastStableOffset()).isEqualTo(first.baseOffset()); // the transaction is open
        assertThat(log.appendAsCoordinator(coordinatorBatch((short) 1), 0).error())
                .isEqualTo(Errors.INVALID_PRODUCER_EPOCH);
        assertThat(log.append(Batches.commitMarker(PID, (short) 2, 1000), 0).error()).isEqualTo(Errors.NONE);
        log.flush();
        assertThat(log.lastStableOffset()).isEqualTo(log.logEndOffset()); // the commit closes it
    }
}
