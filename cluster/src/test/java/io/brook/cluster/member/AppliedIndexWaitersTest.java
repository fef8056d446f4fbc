package io.brook.cluster.member;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class AppliedIndexWaitersTest {
    private final AtomicLong lastApplied = new AtomicLong(-1);
    // runs completions on the calling thread, so the test sees them at once
    private final AppliedIndexWaiters waiters = new AppliedIndexWaiters(lastApplied::get, Runnable::run);

    @Test
    void aWaiterCompletesOnceItsIndexIsAppliedAndNotBefore() {
        CompletableFuture<Void> five = waiters.await(5);
        CompletableFuture<Void> seven = waiters.await(7);

        lastApplied.set(4);
        waiters.applied();
        assertThat(five).isNotDone();

        lastApplied.set(6);
        waiters.applied();
        assertThat(five).isCompleted();
        assertThat(seven).isNotDone();

        lastApplied.set(9);
        waiters.applied();
        assertThat(seven).isCompleted();
    }

    @Test
    void anIndexAlreadyAppliedCompletesAtOnce() {
        lastApplied.set(10);
        assertThat(waiters.await(3)).isCompleted();
        assertThat(waiters.await(10)).isCompleted();
    }

    @Test
    void closingFailsWhatStillWaitsAndWhatComesAfter() {
        CompletableFuture<Void> pending = waiters.await(1);
        waiters.close();
        assertThat(pending).isCompletedExceptionally();
        assertThat(waiters.await(0)).isCompletedExceptionally();
    }
}
