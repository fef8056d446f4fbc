package io.brook.coordinator.txn;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import io.brook.coordinator.runtime.InMemoryCoordinatorLog;
import io.brook.testkit.MutableClock;
import io.brook.wire.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * {@code __transaction_state} is loaded in the background, partition by partition, while the
 * coordinator serves: requests for an id whose partition loads get COORDINATOR_LOAD_IN_PROGRESS,
 * ids of loaded partitions are served (a list of them all only once every partition is), and a transaction found prepared is completed once its
 * partition is loaded.
 */
class TxnStateLoadingTest {

    private static final int IDS = 400;
    private static final int TIMEOUT = 60_000;

    private final MutableClock clock = new MutableClock(1_000_000);
    private final InMemoryCoordinatorLog log = new InMemoryCoordinatorLog();
    private final AtomicLong nextPid = new AtomicLong(1000);
    private final TransactionCoordinatorTest.RecordingMarkers markers = new TransactionCoordinatorTest.RecordingMarkers();
    private final TxnCoordinatorConfig config = TxnCoordinatorConfig.defaults().withPartitions(4);
    /** The reads of the load, run one at a time by the test. */
    private final Queue<Runnable> reads = new ArrayDeque<>();

    private static <T> T done(TransactionCoordinator c, CompletableFuture<T> f) {
        c.runPending();
        assertThat(f).isDone();
        return f.join();
    }

    /** A log with many ids, one of them ("prepared") with a commit prepared whose markers were not written. */
    private void fill() {
        TransactionCoordinator first = new TransactionCoordinator(config, log, clock, nextPid::getAndIncrement, markers, false);
        first.start();
        for (int i = 0; i < IDS; i++) done(first, first.initProducerId("id-" + i, TIMEOUT, -1, (short) -1));
        InitPidResult p = done(first, first.initProducerId("prepared", TIMEOUT, -1, (short) -1));
        done(first, first.addPartitions("prepared", p.producerId(), p.producerEpoch(), Map.of("t", new TreeSet<>(Set.of(0)))));
        markers.autoComplete = false;
        done(first, first.endTxn("prepared", p.producerId(), p.producerEpoch(), true));
        first.close();
        markers.calls.clear();
        markers.autoComplete = true;
    }

    @Test
    void requestsGetLoadInProgressUntilTheirPartitionIsLoadedAndAreServedAfterwards() {
        fill();
        TransactionCoordinator c = new TransactionCoordinator(config, log, clock, nextPid::getAndIncrement, markers, false,
                reads::add, 16);
        try {
            c.start();
            c.runPending();
            assertThat(c.loading()).isTrue();
            assertThat(c.loaded()).isNotDone();
            String id = "id-7";
            int partition = config.partitionFor(id);
            assertThat(done(c, c.initProducerId(id, TIMEOUT, -1, (short) -1)).error()).isEqualTo(Errors.COORDINATOR_LOAD_IN_PROGRESS);
            assertThat(done(c, c.endTxn(id, 1000, (short) 0, true)).error()).isEqualTo(Errors.COORDINATOR_LOAD_IN_PROGRESS);
            assertThat(done(c, c.addPartitions(id, 1000, (short) 0, Map.of("t", Set.of(0)))))
                    .isEqualTo(Errors.COORDINATOR_LOAD_IN_PROGRESS);
            assertThat(done(c, c.describe(List.of(id))).get(0).error()).isEqualTo(Errors.COORDINATOR_LOAD_IN_PROGRESS);
            // a list would be partial: none until every partition is loaded, as Kafka answers
            TxnListing partial = done(c, c.list(Set.of(), Set.of(), -1));
            assertThat(partial.error()).isEqualTo(Errors.COORDINATOR_LOAD_IN_PROGRESS);
            assertThat(partial.transactions()).isEmpty();
            // the load goes on chunk by chunk between requests
            int chunks = 0;
            while (!reads.isEmpty() && !c.loaded().isDone()) {
                reads.poll().run();
                c.runPending();
                chunks++;
            }
            assertThat(chunks).as("many chunks").isGreaterThan(10);
            assertThat(c.loaded()).isDone();
            assertThat(c.loading()).isFalse();
            TxnListing all = done(c, c.list(Set.of(), Set.of(), -1));
            assertThat(all.error()).isEqualTo(Errors.NONE);
            assertThat(all.transactions()).hasSize(IDS + 1);
            // the client's retry now succeeds: the id is known, its epoch bumped
            InitPidResult r = done(c, c.initProducerId(id, TIMEOUT, -1, (short) -1));
            assertThat(r.error()).isEqualTo(Errors.NONE);
            assertThat(r.producerEpoch()).isEqualTo((short) 1);
            // the prepared commit was completed once its partition was loaded
            assertThat(markers.calls).singleElement().satisfies(call -> assertThat(call.commit()).isTrue());
            assertThat(c.state("prepared").state()).isEqualTo(TxnState.COMPLETE_COMMIT);
            assertThat(c.taskFailures()).isZero();
        } finally {
            c.close();
        }
    }

    @Test
    void aLoadedPartitionServesWhileALaterOneStillLoads() {
        fill();
        TransactionCoordinator c = new TransactionCoordinator(config, log, clock, nextPid::getAndIncrement, markers, false,
                reads::add, 16);
        try {
            c.start();
            c.runPending();
            String early = null;
            String late = null;
            for (int i = 0; i < IDS; i++) {
                if (config.partitionFor("id-" + i) == 0 && early == null) early = "id-" + i;
                if (config.partitionFor("id-" + i) == 3 && late == null) late = "id-" + i;
            }
            // run the reads until partition 0 is loaded (its ids are served) and 3 is not
            String first = early;
            while (done(c, c.describe(List.of(first))).get(0).error() == Errors.COORDINATOR_LOAD_IN_PROGRESS) {
                reads.poll().run();
                c.runPending();
            }
            assertThat(done(c, c.initProducerId(early, TIMEOUT, -1, (short) -1)).error()).isEqualTo(Errors.NONE);
            assertThat(done(c, c.initProducerId(late, TIMEOUT, -1, (short) -1)).error()).isEqualTo(Errors.COORDINATOR_LOAD_IN_PROGRESS);
            // the loaded partition's ids alone are not the list
            assertThat(done(c, c.list(Set.of(), Set.of(), -1)).error()).isEqualTo(Errors.COORDINATOR_LOAD_IN_PROGRESS);
        } finally {
            c.close();
        }
    }
}
