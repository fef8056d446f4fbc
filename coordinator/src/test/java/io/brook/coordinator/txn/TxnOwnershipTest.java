package io.brook.coordinator.txn;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import io.brook.coordinator.runtime.InMemoryCoordinatorLog;
import io.brook.testkit.MutableClock;
import io.brook.wire.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A transaction coordinator that owns only some partitions of {@code __transaction_state}, as a
 * cluster node owns those it leads: ids of the others get NOT_COORDINATOR, a partition gained is
 * loaded (its prepared transactions completed), a partition lost forgets its ids and open
 * transactions and fails its writes in flight with NOT_COORDINATOR. Virtual time, no threads.
 */
@Timeout(20)
class TxnOwnershipTest {

    private static final int TIMEOUT = 60_000;

    private final MutableClock clock = new MutableClock(1_000_000);
    private final InMemoryCoordinatorLog log = new InMemoryCoordinatorLog();
    private final AtomicLong nextPid = new AtomicLong(1000);
    private final TransactionCoordinatorTest.RecordingMarkers markers = new TransactionCoordinatorTest.RecordingMarkers();
    private final TxnCoordinatorConfig config = TxnCoordinatorConfig.defaults().withPartitions(4);
    private final List<TransactionCoordinator> started = new ArrayList<>();

    @AfterEach
    void noFailures() {
        for (TransactionCoordinator c : started) {
            assertThat(c.taskFailures()).isZero();
            c.close();
        }
    }

    private String idIn(int partition) {
        for (int i = 0; ; i++) {
            if (config.partitionFor("txn-" + i) == partition) return "txn-" + i;
        }
    }

    private TransactionCoordinator owning(Set<Integer> partitions) {
        TransactionCoordinator c = new TransactionCoordinator(config, log, clock, nextPid::getAndIncrement, markers, false);
        c.own(partitions);
        c.start();
        c.runPending();
        started.add(c);
        return c;
    }

    private static <T> T run(TransactionCoordinator c, CompletableFuture<T> f) {
        c.runPending();
        assertThat(f).isDone();
        return f.join();
    }

    private static InitPidResult init(TransactionCoordinator c, String id) {
        return run(c, c.initProducerId(id, TIMEOUT, -1, (short) -1));
    }

    @Test
    void shouldAnswerNotCoordinatorForIdsOfPartitionsItDoesNotOwn() {
        String mine = idIn(0);
        String theirs = idIn(1);
        TransactionCoordinator c = owning(Set.of(0));
        assertThat(c.loading()).isFalse();
        assertThat(init(c, theirs).error()).isEqualTo(Errors.NOT_COORDINATOR);
        assertThat(run(c, c.addPartitions(theirs, 5, (short) 0, Map.of("t", Set.of(0))))).isEqualTo(Errors.NOT_COORDINATOR);
        assertThat(run(c, c.endTxn(theirs, 5, (short) 0, true)).error()).isEqualTo(Errors.NOT_COORDINATOR);
        assertThat(run(c, c.describe(List.of(theirs))).get(0).error()).isEqualTo(Errors.NOT_COORDINATOR);
        assertThat(init(c, mine).error()).isEqualTo(Errors.NONE);
    }

    @Test
    void shouldDropALostPartitionAndLoadItWhereItIsGained() {
        String id = idIn(2);
        TransactionCoordinator first = owning(Set.of(0, 1, 2, 3));
        InitPidResult p = init(first, id);
        assertThat(run(first, first.addPartitions(id, p.producerId(), p.producerEpoch(), Map.of("t", Set.of(0)))))
                .isEqualTo(Errors.NONE);
        assertThat(first.inOngoingTransaction(p.producerId(), p.producerEpoch(), "t", 0)).isTrue();

        // a write in flight when the partition is lost is answered NOT_COORDINATOR
        log.holdAppends(true);
        CompletableFuture<EndTxnResult> ending = first.endTxn(id, p.producerId(), p.producerEpoch(), true);
        first.runPending();
        assertThat(log.heldCount()).isEqualTo(1);
        first.own(Set.of(0, 1, 3));
        first.runPending();
        log.holdAppends(false);
        log.releaseHeld();
        assertThat(run(first, ending).error()).isEqualTo(Errors.NOT_COORDINATOR);
        assertThat(first.state(id)).isNull();
        assertThat(first.inOngoingTransaction(p.producerId(), p.producerEpoch(), "t", 0)).isFalse();
        assertThat(init(first, id).error()).isEqualTo(Errors.NOT_COORDINATOR);

        // the node that gains it finds the PrepareCommit that was written and completes it
        int before = markers.calls.size();
        TransactionCoordinator second = owning(Set.of());
        second.own(Set.of(2));
        second.runPending();
        assertThat(markers.calls).hasSize(before + 1);
        assertThat(markers.calls.get(before).commit()).isTrue();
        assertThat(second.state(id).state()).isEqualTo(TxnState.COMPLETE_COMMIT);
        assertThat(run(second, second.describe(List.of(id))).get(0).error()).isEqualTo(Errors.NONE);
    }
}
