package io.brook.server.api;

import io.brook.server.time.ClockTimer;
import io.brook.testkit.MutableClock;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** How an answer drawn from the high watermark waits for the fsync under way, and how long at most. */
class VisibleTailTest {

    private final MutableClock clock = new MutableClock(1_000_000);
    private final ClockTimer timer = new ClockTimer(clock);
    private final AtomicInteger answers = new AtomicInteger();

    @Test
    void shouldAnswerOnceEveryFsyncIsDoneAndNotAgainAtTheDeadline() {
        CompletableFuture<Void> first = new CompletableFuture<>();
        CompletableFuture<Void> second = new CompletableFuture<>();

        VisibleTail.afterAll(List.of(first, second), timer, 100, Runnable::run, answers::incrementAndGet);
        first.complete(null);
        assertThat(answers).as("one log is still waiting").hasValue(0);
        second.complete(null);
        assertThat(answers).hasValue(1);

        clock.advance(100);
        timer.runDue();
        assertThat(answers).as("the deadline was cancelled").hasValue(1);
        assertThat(timer.pending()).isZero();
    }

    @Test
    void shouldAnswerAtTheDeadlineWhenTheFsyncTakesLongerAndNotAgainWhenItEnds() {
        CompletableFuture<Void> stalled = new CompletableFuture<>();

        VisibleTail.afterAll(List.of(stalled), timer, 100, Runnable::run, answers::incrementAndGet);
        clock.advance(99);
        timer.runDue();
        assertThat(answers).hasValue(0);
        clock.advance(1);
        timer.runDue();
        assertThat(answers).hasValue(1);

        stalled.complete(null);
        assertThat(answers).hasValue(1);
    }

    @Test
    void shouldAnswerWhenALogFailsInsteadOfBecomingDurable() {
        CompletableFuture<Void> failed = new CompletableFuture<>();

        VisibleTail.afterAll(List.of(failed), timer, 100, Runnable::run, answers::incrementAndGet);
        failed.completeExceptionally(new IOException("fsync failed"));

        assertThat(answers).hasValue(1);
    }

    @Test
    void shouldAnswerAtOnceOnTheCallersThreadWhenNoLogHasAnythingUnflushed() {
        VisibleTail.thenAnswer(List.of(), timer, task -> {
            throw new AssertionError("no hand-off expected");
        }, answers::incrementAndGet);

        assertThat(answers).hasValue(1);
        assertThat(timer.pending()).isZero();
    }
}
