package io.brook.cluster.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.cluster.metadata.MetadataRecord;
import io.brook.cluster.raft.AppendResult;
import io.brook.testkit.MutableClock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * The controller's decision queue is bounded: with the quorum stalled, decisions beyond the bound
 * are refused at once with NOT_CONTROLLER (retriable; nothing decided), and once the quorum moves
 * on the queued ones complete and new ones are taken again.
 */
class ControllerQueueTest {

    /** A log whose appends wait until released. */
    private static final class StalledLog extends HeldAppendsLog {
        private final List<Runnable> held = new ArrayList<>();
        private boolean stalled;

        @Override
        public synchronized CompletableFuture<AppendResult> append(List<? extends MetadataRecord> records) {
            if (!stalled) {
                return inner.append(records);
            }
            CompletableFuture<AppendResult> f = new CompletableFuture<>();
            held.add(() -> inner.append(records).whenComplete((r, e) -> f.complete(r)));
            return f;
        }

        void stall() {
            synchronized (this) {
                stalled = true;
            }
        }

        void release() {
            List<Runnable> go;
            synchronized (this) {
                stalled = false;
                go = new ArrayList<>(held);
                held.clear();
            }
            go.forEach(Runnable::run);
        }
    }

    @Test
    void decisionsBeyondTheBoundAreRefusedAtOnceAndTakenAgainOnceTheQueueDrains() {
        StalledLog log = new StalledLog();
        Controller controller = new Controller(new MutableClock(0), Controller.DEFAULT_SESSION_TIMEOUT_MS, log,
                UUID::randomUUID, 3);
        long epoch = controller.registerBroker(1, new UUID(1, 1), List.of(), null).join();
        controller.heartbeat(1, epoch).join();

        log.stall();
        List<CompletableFuture<UUID>> waiting = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            waiting.add(controller.createTopic("t" + i, 1, 1, Map.of()));
        }
        assertThat(controller.queuedDecisions()).isEqualTo(3);
        CompletableFuture<UUID> refused = controller.createTopic("t3", 1, 1, Map.of());
        assertThat(refused).isCompletedExceptionally();
        try {
            refused.join();
        } catch (CompletionException e) {
            assertThat(((ControllerException) e.getCause()).error()).isEqualTo(ControllerError.NOT_CONTROLLER);
        }

        log.release();
        for (CompletableFuture<UUID> f : waiting) {
            assertThat(f.join()).isNotNull();
        }
        assertThat(controller.queuedDecisions()).isZero();
        assertThat(controller.createTopic("t3", 1, 1, Map.of()).join()).isNotNull();
        UUID created = log.read(image -> image.topicId("t3"));
        assertThat(created).isNotNull();
    }
}
