package io.brook.server.api.fetch;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.time.ClockTimer;
import io.brook.server.topic.TopicPartition;
import io.brook.testkit.MutableClock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DelayedFetchTest {

    private final FetchWaiters waiters = new FetchWaiters(Integer.MAX_VALUE);
    private final ManualExecutor executor = new ManualExecutor();
    private final List<Boolean> attempts = new ArrayList<>();
    private final TopicPartition tp = new TopicPartition("t", 0);

    private DelayedFetch fetch(boolean completeOnData) {
        DelayedFetch f = new DelayedFetch(waiters, List.of(tp), executor, deadline -> {
            attempts.add(deadline);
            return completeOnData;
        });
        waiters.watch(tp, f);
        return f;
    }

    @Test
    void shouldCoalesceABurstOfWakeUpsIntoOneCheck() {
        DelayedFetch f = fetch(false);
        for (int i = 0; i < 5; i++) {
            waiters.wake(tp);
        }
        assertThat(executor.tasks).hasSize(1);
        executor.runAll();
        assertThat(attempts).containsExactly(false);
        assertThat(f.isDone()).isFalse();
        waiters.wake(tp);
        executor.runAll();
        assertThat(attempts).containsExactly(false, false);
    }

    @Test
    void shouldCheckAgainWhenDataArrivesDuringACheck() {
        // the data became visible just after this check read the log: the wake-up it causes must not be lost
        List<Boolean> seen = new ArrayList<>();
        DelayedFetch f = new DelayedFetch(waiters, List.of(tp), executor, deadline -> {
            seen.add(deadline);
            if (seen.size() == 1) {
                waiters.wake(tp);
                return false;
            }
            return true;
        });
        waiters.watch(tp, f);
        waiters.wake(tp);
        executor.runAll();
        assertThat(seen).containsExactly(false, false);
        assertThat(f.isDone()).isTrue();
        assertThat(waiters.waiting()).isZero();
    }

    @Test
    void shouldAnswerAtTheDeadlineAndUnregister() {
        DelayedFetch f = fetch(false);
        f.expire();
        executor.runAll();
        assertThat(attempts).containsExactly(true);
        assertThat(f.isDone()).isTrue();
        assertThat(waiters.waiting()).isZero();
        waiters.wake(tp);
        f.expire();
        assertThat(executor.tasks).isEmpty();
    }

    @Test
    void shouldFinishWhenAnAttemptAnswers() {
        DelayedFetch f = fetch(true);
        waiters.wake(tp);
        executor.runAll();
        assertThat(f.isDone()).isTrue();
        assertThat(waiters.waiting()).isZero();
        assertThat(attempts).containsExactly(false);
    }

    @Test
    void shouldExpireAtMaxWaitOnTheTimersClock() {
        MutableClock clock = new MutableClock(0);
        ClockTimer timer = new ClockTimer(clock);
        DelayedFetch f = new DelayedFetch(waiters, List.of(tp), executor, deadline -> {
            attempts.add(deadline);
            return false;
        });
        f.start(timer, 500);
        executor.runAll();
        assertThat(attempts).as("the check right after registering").containsExactly(false);
        clock.advance(499);
        timer.runDue();
        executor.runAll();
        assertThat(attempts).containsExactly(false);
        clock.advance(1);
        timer.runDue();
        executor.runAll();
        assertThat(attempts).containsExactly(false, true);
        assertThat(f.isDone()).isTrue();
        assertThat(waiters.waiting()).isZero();
    }

    @Test
    void shouldCancelItsDeadlineWhenAnsweredEarly() {
        ClockTimer timer = new ClockTimer(new MutableClock(0));
        DelayedFetch f = fetch(true);
        f.start(timer, 500);
        executor.runAll();
        assertThat(f.isDone()).isTrue();
        assertThat(timer.pending()).isZero();
    }
}
