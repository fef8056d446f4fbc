package io.brook.coordinator.txn;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.coordinator.runtime.InMemoryCoordinatorLog;
import io.brook.testkit.MutableClock;
import io.brook.wire.protocol.Errors;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A producer-id source with no id at hand (cluster mode: the next block from the controller is
 * under way) holds no coordinator thread: InitProducerId is answered once the block is there,
 * and the coordinator serves other requests meanwhile.
 */
class ProducerIdsPendingTest {

    private final MutableClock clock = new MutableClock(1_000_000);
    private final AtomicLong nextPid = new AtomicLong(5000);
    /** While not null, the source has no id and this completes when it has. */
    private volatile CompletableFuture<Void> blockUnderWay;
    private final LongSupplier source = () -> {
        CompletableFuture<Void> wait = blockUnderWay;
        if (wait != null) {
            throw new ProducerIdsPending(wait);
        }
        return nextPid.getAndIncrement();
    };
    private final TransactionCoordinator coordinator = new TransactionCoordinator(
            TxnCoordinatorConfig.defaults().withPartitions(4), new InMemoryCoordinatorLog(), clock, source,
            new TransactionCoordinatorTest.RecordingMarkers(), false);

    @AfterEach
    void close() {
        assertThat(coordinator.taskFailures()).isZero();
        coordinator.close();
    }

    @Test
    void initProducerIdIsAnsweredWhenTheIdsArriveWithoutHoldingTheCoordinator() {
        coordinator.start();
        coordinator.runPending();
        InitPidResult other = run(coordinator.initProducerId("other", 60_000, -1, (short) -1));
        assertThat(other.producerId()).isEqualTo(5000);

        CompletableFuture<Void> block = new CompletableFuture<>();
        blockUnderWay = block;
        CompletableFuture<InitPidResult> waiting = coordinator.initProducerId("new", 60_000, -1, (short) -1);
        coordinator.runPending();
        assertThat(waiting).isNotDone();
        // the coordinator goes on serving: the other producer bumps its epoch meanwhile
        InitPidResult bumped = run(coordinator.initProducerId("other", 60_000, -1, (short) -1));
        assertThat(bumped.producerEpoch()).isEqualTo((short) 1);
        assertThat(waiting).isNotDone();

        blockUnderWay = null;
        block.complete(null);
        InitPidResult result = run(waiting);
        assertThat(result.error()).isEqualTo(Errors.NONE);
        assertThat(result.producerId()).isEqualTo(5001);
        assertThat(result.producerEpoch()).isZero();
    }

    @Test
    void noBlockAnswersCoordinatorNotAvailable() {
        coordinator.start();
        coordinator.runPending();
        CompletableFuture<Void> block = new CompletableFuture<>();
        blockUnderWay = block;
        CompletableFuture<InitPidResult> waiting = coordinator.initProducerId("new", 60_000, -1, (short) -1);
        coordinator.runPending();
        block.completeExceptionally(new IllegalStateException("the controller gave no ids"));
        assertThat(run(waiting).error()).isEqualTo(Errors.COORDINATOR_NOT_AVAILABLE);
    }

    private <T> T run(CompletableFuture<T> f) {
        coordinator.runPending();
        assertThat(f).isDone();
        return f.join();
    }
}
