package io.brook.cluster.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.cluster.metadata.MetadataRecord;
import io.brook.cluster.metadata.MetadataRecord.AccessControlEntry;
import io.brook.cluster.raft.AppendResult;
import io.brook.testkit.MutableClock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The controller's lock (its monitor, which orders the decision queue) is never held while a
 * decision appends, and never needed while one completes. Ratis' client takes a lock of its own to
 * send an append and to complete the futures of those answered; a controller that appended under
 * its lock while Ratis completed the previous decision, whose completion wanted the controller's
 * lock, deadlocked a three-node test. Each half is checked on its own, without relying on the
 * order in which a future runs its callbacks.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ControllerLockTest {

    private static final AccessControlEntry FIRST = new AccessControlEntry((byte) 2, "a", (byte) 3, "User:alice", "*",
            (byte) 3, (byte) 3);
    private static final AccessControlEntry SECOND = new AccessControlEntry((byte) 2, "b", (byte) 3, "User:alice", "*",
            (byte) 3, (byte) 3);

    /** Appends wait for {@link #answerOldest}; each append notes whether the controller's lock was held. */
    private static final class AnsweredLog extends HeldAppendsLog {
        private final List<Map.Entry<List<? extends MetadataRecord>, CompletableFuture<AppendResult>>> sent =
                new ArrayList<>();
        private final List<Boolean> appendedUnderTheControllersLock = new ArrayList<>();
        private volatile Controller controller;

        @Override
        public synchronized CompletableFuture<AppendResult> append(List<? extends MetadataRecord> records) {
            appendedUnderTheControllersLock.add(Thread.holdsLock(controller));
            CompletableFuture<AppendResult> f = new CompletableFuture<>();
            sent.add(Map.entry(records, f));
            return f;
        }

        synchronized List<Boolean> appendedUnderTheControllersLock() {
            return List.copyOf(appendedUnderTheControllersLock);
        }

        /** Applies the oldest append and completes its future, on the calling thread. */
        void answerOldest() {
            Map.Entry<List<? extends MetadataRecord>, CompletableFuture<AppendResult>> e;
            synchronized (this) {
                e = sent.remove(0);
            }
            e.getValue().complete(inner.append(e.getKey()).join());
        }
    }

    private static Controller controller(AnsweredLog log) {
        Controller c = new Controller(new MutableClock(0), Controller.DEFAULT_SESSION_TIMEOUT_MS, log, UUID::randomUUID);
        log.controller = c;
        return c;
    }

    @Test
    void noDecisionAppendsUnderTheControllersLock() throws Exception {
        AnsweredLog log = new AnsweredLog();
        Controller controller = controller(log);

        CompletableFuture<List<Boolean>> first = controller.writeSecurity(List.of(FIRST)); // nothing before it
        log.answerOldest();
        assertThat(first.get(10, TimeUnit.SECONDS)).containsExactly(true);
        CompletableFuture<List<Boolean>> second = controller.writeSecurity(List.of(SECOND)); // the first is done
        log.answerOldest();
        assertThat(second.get(10, TimeUnit.SECONDS)).containsExactly(true);

        assertThat(log.appendedUnderTheControllersLock()).containsExactly(false, false);
    }

    @Test
    void aDecisionCompletesWhileAnotherThreadHoldsTheControllersLock() throws Exception {
        AnsweredLog log = new AnsweredLog();
        Controller controller = controller(log);
        CompletableFuture<List<Boolean>> first = controller.writeSecurity(List.of(FIRST));
        CompletableFuture<List<Boolean>> second = controller.writeSecurity(List.of(SECOND));

        Thread answering = new Thread(log::answerOldest, "log-answers");
        answering.setDaemon(true); // a deadlock must not keep the test JVM alive
        synchronized (controller) {
            // as a decision asked for meanwhile would hold it while it appends
            answering.start();
            answering.join(TimeUnit.SECONDS.toMillis(20));
            assertThat(answering.isAlive()).as("the completion of the first decision waited for the lock").isFalse();
        }
        assertThat(first.get(10, TimeUnit.SECONDS)).containsExactly(true);
        log.answerOldest(); // the second was sent when the first completed
        assertThat(second.get(10, TimeUnit.SECONDS)).containsExactly(true);
        assertThat(controller.queuedDecisions()).isZero();
    }
}
