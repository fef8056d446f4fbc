package io.brook.cluster.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.cluster.metadata.MetadataRecord;
import io.brook.cluster.raft.AppendResult;
import io.brook.testkit.MutableClock;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Heartbeats of live brokers do not wait behind the controller's queued decisions. */
class ControllerHeartbeatTest {

    private static final long SESSION = Controller.DEFAULT_SESSION_TIMEOUT_MS;

    /** An {@link ImageLog} whose appends wait until {@link #release()}: a slow quorum. */
    private static final class HeldLog extends HeldAppendsLog {
        volatile CompletableFuture<Void> gate = CompletableFuture.completedFuture(null);

        @Override
        public CompletableFuture<AppendResult> append(List<? extends MetadataRecord> records) {
            return gate.thenCompose(v -> inner.append(records));
        }

        void hold() {
            gate = new CompletableFuture<>();
        }

        void release() {
            gate.complete(null);
        }
    }

    private final MutableClock clock = new MutableClock(1_000_000);
    private final HeldLog log = new HeldLog();
    private final Controller controller = new Controller(clock, SESSION, log, () -> new UUID(7, 1));

    @Test
    void aLiveBrokersHeartbeatIsAnsweredAtOnceAndKeepsItFromBeingFencedByAQueuedTick() {
        long epoch = controller.registerBroker(1, new UUID(1, 1), List.of(), null).join();
        controller.heartbeat(1, epoch).join();

        log.hold();
        CompletableFuture<UUID> slow = controller.createTopic("t", 1, 1, Map.of());
        clock.advance(SESSION - 500);
        CompletableFuture<List<Integer>> tick = controller.tick();
        clock.advance(400);
        CompletableFuture<Void> heartbeat = controller.heartbeat(1, epoch);

        assertThat(heartbeat).isDone();
        assertThat(slow).isNotDone();

        clock.advance(1000);
        log.release();
        slow.join();
        assertThat(tick.join()).isEmpty();
        assertThat(log.read(image -> image.brokers().get(1)).fenced()).isFalse();
    }

    @Test
    void aControlledShutdownFencesAtOnceAndALateHeartbeatDoesNotUnfence() {
        long epoch = controller.registerBroker(1, new UUID(1, 1), List.of(), null).join();
        controller.heartbeat(1, epoch).join();

        controller.controlledShutdown(1, epoch).join();
        assertThat(log.read(image -> image.brokers().get(1)).fenced()).isTrue();
        controller.heartbeat(1, epoch).join();
        assertThat(log.read(image -> image.brokers().get(1)).fenced()).isTrue();

        // back with a new registration, its heartbeat unfences it
        long next = controller.registerBroker(1, new UUID(1, 2), List.of(), null).join();
        controller.heartbeat(1, next).join();
        assertThat(log.read(image -> image.brokers().get(1)).fenced()).isFalse();
    }

    @Test
    void aFencedBrokersHeartbeatStillUnfencesItThroughTheQueueAndStaleEpochsAreRefusedAtOnce() {
        long epoch = controller.registerBroker(1, new UUID(1, 1), List.of(), null).join();

        log.hold();
        CompletableFuture<Void> unfence = controller.heartbeat(1, epoch);
        assertThat(unfence).isNotDone();
        assertThat(controller.heartbeat(1, epoch + 1)).isCompletedExceptionally();
        log.release();
        unfence.join();

        assertThat(log.read(image -> image.brokers().get(1)).fenced()).isFalse();
    }
}
