package io.brook.server.time;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.Await;
import io.brook.testkit.MutableClock;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class ClockTimerTest {

    private final MutableClock clock = new MutableClock(1_000);
    private final List<String> ran = new CopyOnWriteArrayList<>();

    @Test
    void shouldRunWhatIsDueInDeadlineOrderWhenTheClockGetsThere() {
        ClockTimer timer = new ClockTimer(clock);
        timer.schedule(30, () -> ran.add("c"));
        timer.schedule(10, () -> ran.add("a"));
        timer.schedule(10, () -> ran.add("b"));
        timer.schedule(0, () -> ran.add("now"));
        assertThat(timer.runDue()).isEqualTo(1);
        assertThat(ran).containsExactly("now");
        clock.advance(9);
        assertThat(timer.runDue()).isZero();
        clock.advance(21);
        assertThat(timer.runDue()).isEqualTo(3);
        assertThat(ran).containsExactly("now", "a", "b", "c");
        assertThat(timer.pending()).isZero();
    }

    @Test
    void shouldNotRunACancelledTaskNorLetAFailingOneStopTheOthers() {
        ClockTimer timer = new ClockTimer(clock);
        Timer.Scheduled cancelled = timer.schedule(5, () -> ran.add("cancelled"));
        timer.schedule(5, () -> {
            throw new IllegalStateException("task bug");
        });
        timer.schedule(5, () -> ran.add("after"));
        cancelled.cancel();
        assertThat(timer.pending()).isEqualTo(2);
        clock.advance(5);
        timer.runDue();
        assertThat(ran).containsExactly("after");
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.SECONDS)
    void shouldRunDueTasksOnItsOwnThreadWhenFollowingTheClock() {
        ClockTimer timer = ClockTimer.following(clock);
        try {
            timer.schedule(100, () -> ran.add(Thread.currentThread().getName()));
            assertThat(timer.pending()).isEqualTo(1);
            clock.advance(100);
            Await.until("the task ran", () -> !ran.isEmpty());
            assertThat(ran).containsExactly("brook-timer");
        } finally {
            timer.close();
        }
        timer.schedule(0, () -> ran.add("after close"));
        assertThat(timer.pending()).isZero();
    }
}
