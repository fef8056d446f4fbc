package io.brook.coordinator.runtime;

import io.brook.testkit.MutableClock;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class EventLoopTest {

    @Test
    void shouldFireTimersInDeadlineOrderOnlyWhenDue() {
        MutableClock clock = new MutableClock(0);
        EventLoop loop = new EventLoop(clock, e -> { throw new AssertionError(e); });
        List<String> fired = new ArrayList<>();
        loop.schedule("b", 200, () -> fired.add("b"));
        loop.schedule("a", 100, () -> fired.add("a"));
        loop.schedule("c", 100, () -> fired.add("c"));
        loop.runPending();
        assertThat(fired).isEmpty();
        clock.advance(100);
        loop.runPending();
        assertThat(fired).containsExactly("a", "c");
        clock.advance(100);
        loop.runPending();
        assertThat(fired).containsExactly("a", "c", "b");
    }

    @Test
    void shouldRunAnOverdueTimerBeforeATaskQueuedAfterItsDeadline() {
        MutableClock clock = new MutableClock(0);
        EventLoop loop = new EventLoop(clock, e -> { throw new AssertionError(e); });
        List<String> ran = new ArrayList<>();
        loop.schedule("session", 100, () -> ran.add("expire"));
        clock.advance(101);
        loop.execute(() -> ran.add("heartbeat"));
        loop.runPending();
        assertThat(ran).containsExactly("expire", "heartbeat");
    }

    @Test
    void shouldRunATimerDueNowOnlyAfterTheTasksQueuedWithIt() {
        MutableClock clock = new MutableClock(0);
        EventLoop loop = new EventLoop(clock, e -> { throw new AssertionError(e); });
        List<String> ran = new ArrayList<>();
        loop.execute(() -> {
            ran.add("join a");
            loop.schedule("rebalance", 0, () -> ran.add("rebalance"));
        });
        loop.execute(() -> ran.add("join b"));
        loop.runPending();
        assertThat(ran).containsExactly("join a", "join b", "rebalance");
    }

    @Test
    void shouldReplaceTimerWithSameKeyAndCancel() {
        MutableClock clock = new MutableClock(0);
        EventLoop loop = new EventLoop(clock, e -> { });
        AtomicInteger n = new AtomicInteger();
        loop.schedule("k", 100, n::incrementAndGet);
        clock.advance(50);
        loop.schedule("k", 100, () -> n.addAndGet(10));
        clock.advance(50);
        loop.runPending();
        assertThat(n).hasValue(0);
        assertThat(loop.deadline("k")).isEqualTo(150);
        clock.advance(50);
        loop.runPending();
        assertThat(n).hasValue(10);
        loop.schedule("x", 1, n::incrementAndGet);
        loop.cancel("x");
        clock.advance(10);
        loop.runPending();
        assertThat(n).hasValue(10);
        assertThat(loop.isScheduled("x")).isFalse();
    }

    @Test
    void shouldNotAccumulateCancelledTimersWhenReArmedOften() {
        MutableClock clock = new MutableClock(0);
        EventLoop loop = new EventLoop(clock, e -> { });
        AtomicInteger fired = new AtomicInteger();
        for (int round = 0; round < 100_000; round++) {
            loop.schedule("member-" + (round % 10), 45_000, fired::incrementAndGet);
        }
        assertThat(loop.heapSize()).isLessThan(2_100);
        clock.advance(45_000);
        loop.runPending();
        assertThat(fired).hasValue(10);
        assertThat(loop.heapSize()).isZero();
    }

    @Test
    void shouldKeepRunningAfterATaskThrows() {
        List<Throwable> errors = new ArrayList<>();
        EventLoop loop = new EventLoop(new MutableClock(0), errors::add);
        AtomicInteger n = new AtomicInteger();
        loop.execute(() -> { throw new IllegalStateException("boom"); });
        loop.execute(n::incrementAndGet);
        assertThat(loop.runPending()).isEqualTo(2);
        assertThat(n).hasValue(1);
        assertThat(errors).singleElement().isInstanceOf(IllegalStateException.class);
    }

    @Test
    void shouldRunTasksFromManyThreadsOnItsOwnThread() throws Exception {
        EventLoop loop = new EventLoop(java.time.Clock.systemUTC(), e -> { });
        loop.start("test-loop");
        try {
            int producers = 4;
            int perProducer = 1000;
            CountDownLatch done = new CountDownLatch(producers * perProducer);
            int[] counter = new int[1]; // only touched by the loop thread
            List<Thread> threads = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                Thread t = new Thread(() -> {
                    for (int i = 0; i < perProducer; i++) {
                        loop.execute(() -> {
                            assertThat(loop.inLoopThread()).isTrue();
                            counter[0]++;
                            done.countDown();
                        });
                    }
                });
                threads.add(t);
                t.start();
            }
            for (Thread t : threads) t.join();
            assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
            CountDownLatch read = new CountDownLatch(1);
            int[] seen = new int[1];
            loop.execute(() -> {
                seen[0] = counter[0];
                read.countDown();
            });
            assertThat(read.await(5, TimeUnit.SECONDS)).isTrue();
            assertThat(seen[0]).isEqualTo(producers * perProducer);
        } finally {
            loop.stop();
        }
    }
}
