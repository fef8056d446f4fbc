package io.brook.server.api.fetch;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.topic.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Registration of waiting fetches racing with the unregistration of others on the same
 * partition, with the interleaving forced by the map rather than left to the scheduler.
 */
class FetchWaitersTest {

    /**
     * Runs {@link #between} once, right after the next registration's map update returned: the
     * latest point at which another thread's unregistration can run before that registration is
     * over.
     */
    @SuppressWarnings("serial")
    private static final class InterleavingMap extends ConcurrentHashMap<TopicPartition, Set<DelayedFetch>> {
        Runnable between;
        boolean interleaved;

        @Override
        public Set<DelayedFetch> computeIfAbsent(TopicPartition key,
                Function<? super TopicPartition, ? extends Set<DelayedFetch>> f) {
            Set<DelayedFetch> set = super.computeIfAbsent(key, f);
            runBetween();
            return set;
        }

        @Override
        public Set<DelayedFetch> compute(TopicPartition key,
                BiFunction<? super TopicPartition, ? super Set<DelayedFetch>, ? extends Set<DelayedFetch>> f) {
            Set<DelayedFetch> set = super.compute(key, f);
            runBetween();
            return set;
        }

        private void runBetween() {
            Runnable r = between;
            if (r != null) {
                between = null;
                interleaved = true;
                r.run();
            }
        }
    }

    private final InterleavingMap map = new InterleavingMap();
    private final FetchWaiters waiters = new FetchWaiters(map, Integer.MAX_VALUE);
    private final ManualExecutor executor = new ManualExecutor();
    private final TopicPartition tp = new TopicPartition("t", 0);
    private final List<String> checks = new ArrayList<>();

    private DelayedFetch fetch(String name) {
        return new DelayedFetch(waiters, List.of(tp), executor, deadline -> {
            checks.add(name);
            return false;
        });
    }

    @Test
    void shouldWakeAFetchThatRegisteredWhileTheLastOtherWaiterLeft() {
        // a consumer's fetch A was answered and is unregistering while its next fetch B registers
        DelayedFetch a = fetch("a");
        waiters.watch(tp, a);
        DelayedFetch b = fetch("b");
        map.between = () -> waiters.unwatch(tp, a);
        waiters.watch(tp, b);
        assertThat(map.interleaved).as("the unregistration ran inside the registration").isTrue();

        waiters.wake(tp);
        executor.runAll();

        assertThat(checks).containsExactly("b");
        assertThat(waiters.waiting()).isEqualTo(1);
    }

    @Test
    void shouldDropThePartitionsEntryWhenItsLastWaiterLeaves() {
        DelayedFetch a = fetch("a");
        DelayedFetch b = fetch("b");
        waiters.watch(tp, a);
        waiters.watch(tp, b);
        waiters.unwatch(tp, a);
        waiters.unwatch(tp, b);
        assertThat(map).isEmpty();
        waiters.wake(tp);
        assertThat(executor.tasks).isEmpty();
    }
}
