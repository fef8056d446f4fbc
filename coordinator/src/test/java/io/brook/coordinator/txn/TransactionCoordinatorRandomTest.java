package io.brook.coordinator.txn;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SortedSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import io.brook.coordinator.runtime.InMemoryCoordinatorLog;
import io.brook.testkit.MutableClock;
import io.brook.wire.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * Random sequences of InitProducerId, AddPartitionsToTxn, EndTxn (with current and stale
 * epochs), time passing and restarts, with fixed seeds, checked after every step: what is durable
 * replays to the same state, epochs of a producer id never go back, partitions are held exactly
 * while a transaction is open, every marker ends a prepared transaction, and no answer is an
 * unexpected error.
 */
class TransactionCoordinatorRandomTest {

    private static final List<String> IDS = List.of("a", "b", "c");
    private static final Set<Errors> EXPECTED = Set.of(Errors.NONE, Errors.CONCURRENT_TRANSACTIONS,
            Errors.INVALID_TXN_STATE, Errors.PRODUCER_FENCED, Errors.INVALID_PRODUCER_ID_MAPPING);

    private final MutableClock clock = new MutableClock(1_000_000);
    private final InMemoryCoordinatorLog log = new InMemoryCoordinatorLog();
    private final AtomicLong pids = new AtomicLong();
    private final Map<String, TxnSnapshot> lastSeen = new HashMap<>();
    private final Map<Long, Short> highestEpoch = new HashMap<>();
    private TransactionCoordinator coordinator;
    private int markerCalls;
    private int restarts;

    private final TxnMarkers markers = (pid, epoch, commit, transactionsV2, partitions) -> {
        markerCalls++;
        assertThat(partitions).isNotEmpty();
        return CompletableFuture.completedFuture(null);
    };

    private TransactionCoordinator start() {
        TxnCoordinatorConfig config = TxnCoordinatorConfig.defaults().withPartitions(2)
                .withTimes(900_000, 3_600_000, 10_000, 600_000);
        TransactionCoordinator c = new TransactionCoordinator(config, log, clock, pids::getAndIncrement, markers, false);
        c.start();
        c.runPending();
        return c;
    }

    private <T> T run(CompletableFuture<T> f) {
        coordinator.runPending();
        assertThat(f).isDone();
        return f.join();
    }

    @Test
    void everyStepKeepsTheInvariantsAndReplaysToTheSameState() {
        for (long seed = 1; seed <= 30; seed++) {
            runSeed(seed);
        }
        assertThat(markerCalls).as("transactions ended").isGreaterThan(100);
        assertThat(restarts).isGreaterThan(100);
    }

    private void runSeed(long seed) {
        Random r = new Random(seed);
        log.holdAppends(false);
        coordinator = start();
        Map<String, InitPidResult> producers = new HashMap<>();
        for (int step = 0; step < 200; step++) {
            String id = IDS.get(r.nextInt(IDS.size()));
            InitPidResult p = producers.get(id);
            int op = r.nextInt(10);
            Errors e;
            if (op < 2 || p == null) {
                InitPidResult got = run(coordinator.initProducerId(id, 1_000 + r.nextInt(30_000), -1, (short) -1));
                e = got.error();
                if (e == Errors.NONE) producers.put(id, got);
            } else if (op < 6) {
                short epoch = r.nextInt(8) == 0 ? (short) (p.producerEpoch() - 1) : p.producerEpoch();
                e = run(coordinator.addPartitions(id, p.producerId(), epoch, Map.of("t" + r.nextInt(2), Set.of(r.nextInt(3)))));
            } else if (op < 8) {
                e = run(coordinator.endTxn(id, p.producerId(), p.producerEpoch(), r.nextBoolean())).error();
            } else if (op < 9) {
                clock.advance(r.nextInt(20_000));
                coordinator.runPending();
                e = Errors.NONE;
            } else {
                Map<String, TxnSnapshot> before = durableStates();
                coordinator.close();
                coordinator = start();
                restarts++;
                Map<String, TxnSnapshot> after = durableStates();
                for (Map.Entry<String, TxnSnapshot> b : before.entrySet()) {
                    TxnSnapshot a = after.get(b.getKey());
                    assertThat(a).as("seed %d: %s replayed", seed, b.getKey()).isNotNull();
                    assertThat(a.producerId()).isEqualTo(b.getValue().producerId());
                    assertThat(a.producerEpoch()).isEqualTo(b.getValue().producerEpoch());
                    assertThat(a.state()).isEqualTo(b.getValue().state());
                    assertThat(a.partitions()).isEqualTo(b.getValue().partitions());
                }
                e = Errors.NONE;
            }
            assertThat(EXPECTED).as("seed %d step %d", seed, step).contains(e);
            checkInvariants(seed, step);
        }
        assertThat(coordinator.taskFailures()).isZero();
        coordinator.close();
    }

    private Map<String, TxnSnapshot> durableStates() {
        Map<String, TxnSnapshot> out = new HashMap<>();
        for (String id : IDS) {
            TxnSnapshot s = coordinator.state(id);
            if (s != null && s.producerEpoch() >= 0) out.put(id, s);
        }
        return out;
    }

    private void checkInvariants(long seed, int step) {
        for (String id : IDS) {
            TxnSnapshot s = coordinator.state(id);
            if (s == null) continue;
            String where = "seed " + seed + " step " + step + " id " + id;
            Map<String, SortedSet<Integer>> parts = s.partitions();
            switch (s.state()) {
                case ONGOING, PREPARE_COMMIT, PREPARE_ABORT -> assertThat(parts).as(where).isNotEmpty();
                case EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT -> assertThat(parts).as(where).isEmpty();
                default -> throw new AssertionError(where + ": unexpected durable state " + s.state());
            }
            // markers always complete at once here, so nothing stays prepared
            assertThat(s.state()).as(where).isNotIn(TxnState.PREPARE_COMMIT, TxnState.PREPARE_ABORT);
            Short high = highestEpoch.get(s.producerId());
            if (high != null) assertThat(s.producerEpoch()).as(where + " epoch").isGreaterThanOrEqualTo(high);
            highestEpoch.put(s.producerId(), s.producerEpoch());
            TxnSnapshot prev = lastSeen.put(seed + "/" + id, s);
            if (prev != null && prev.producerId() == s.producerId()) {
                assertThat(s.producerEpoch()).as(where).isGreaterThanOrEqualTo(prev.producerEpoch());
            }
        }
    }
}
