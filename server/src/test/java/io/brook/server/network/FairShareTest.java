package io.brook.server.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.MutableClock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The fairness policy between client ids while saturated, on a manual clock. */
class FairShareTest {

    private final MutableClock clock = new MutableClock(1_000_000);
    private final FairShare share = new FairShare(clock::millis);

    /** {@code n} pipelined requests of {@code clientId} in the current window; returns the largest throttle. */
    private int requests(String clientId, int n) {
        return requests(clientId, n, true);
    }

    /** {@code n} requests of {@code clientId}, each sent only once the one before was answered. */
    private int oneAtATime(String clientId, int n) {
        return requests(clientId, n, false);
    }

    private int requests(String clientId, int n, boolean pipelined) {
        int most = 0;
        for (int i = 0; i < n; i++) {
            most = Math.max(most, share.recorded(clientId, pipelined));
        }
        return most;
    }

    private void nextWindow() {
        clock.advance(FairShare.WINDOW_MS);
    }

    @Test
    void theBusiestClientIsHeldToAnEqualShareOnceSaturated() {
        // a window with 700 chatty requests and 100 of a producer, the broker saturated
        assertThat(requests("load", 700)).isZero();
        assertThat(requests("producer", 100)).isZero();
        share.saturated();
        nextWindow();
        assertThat(share.budget()).isEqualTo(500);
        assertThat(requests("producer", 150)).isZero();
        assertThat(requests("load", 500)).isZero();
        clock.advance(30);
        // past its share: throttled for the rest of the window
        assertThat(share.recorded("load", true)).isEqualTo((int) FairShare.WINDOW_MS - 30);
        assertThat(share.recorded("producer", true)).isZero();
    }

    @Test
    void theShareGrowsWhenEveryCompetingClientIsHeldToIt() {
        requests("load", 700);
        requests("producer", 100);
        share.saturated();
        nextWindow();
        long first = share.budget();
        // both used all they were allowed (the producer too, now that it gets more turns)
        requests("load", (int) first);
        requests("producer", (int) first);
        share.saturated();
        nextWindow();
        assertThat(share.budget()).as("no ratchet down to what the throttled clients were allowed")
                .isGreaterThan(first);
    }

    @Test
    void aBusyClientBesideALightOneIsNeverThrottledWhileTheMachineStaysSaturated() {
        // a producer at full speed beside a tailing consumer that waits for each answer; the
        // machine saturated throughout by something else: the producer keeps every request
        for (int w = 0; w < 20; w++) {
            assertThat(requests("producer", 900)).isZero();
            assertThat(oneAtATime("consumer", 100)).isZero();
            share.saturated();
            nextWindow();
            assertThat(share.budget()).isEqualTo(Long.MAX_VALUE);
        }
    }

    @Test
    void aClientThatRarelyPipelinesDoesNotPress() {
        requests("load", 700);
        requests("consumer", 20);   // a heartbeat or commit now and then beside its fetch
        oneAtATime("consumer", 80);
        share.saturated();
        nextWindow();
        assertThat(share.budget()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aLightClientIsNotThrottledWhileThePressingOnesAre() {
        requests("load", 700);
        requests("producer", 100);
        oneAtATime("fleet", 2_000); // many connections of one id, each waiting for its answers
        share.saturated();
        nextWindow();
        assertThat(share.budget()).as("the light client's requests do not size the share").isEqualTo(500);
        assertThat(oneAtATime("fleet", 3_000)).isZero();
        assertThat(requests("load", 501)).isPositive();
    }

    @Test
    void aSingleBusyClientIsNeverThrottled() {
        for (int w = 0; w < 5; w++) {
            assertThat(requests("producer", 5_000)).isZero();
            assertThat(requests("admin", 2)).isZero(); // far below 1/16 of the requests: does not compete
            share.saturated();
            nextWindow();
        }
    }

    @Test
    void competingClientsOnABrokerWithRoomAreNotThrottled() {
        for (int w = 0; w < 5; w++) {
            assertThat(requests("a", 5_000)).isZero();
            assertThat(requests("b", 500)).isZero();
            nextWindow();
        }
    }

    @Test
    void throttlingStopsAfterCalmWindows() {
        requests("load", 700);
        requests("producer", 100);
        share.saturated();
        nextWindow();
        List<Long> budgets = new ArrayList<>();
        for (int w = 0; w < FairShare.CALM_WINDOWS; w++) {
            budgets.add(share.budget());
            requests("load", 300);
            requests("producer", 100);
            nextWindow();
        }
        assertThat(budgets).allMatch(b -> b < Long.MAX_VALUE);
        assertThat(share.budget()).isEqualTo(Long.MAX_VALUE);
        assertThat(requests("load", 2_000)).isZero();
    }

    @Test
    void theShareNeverFallsBelowTheFloor() {
        requests("a", 40);
        requests("b", 40);
        share.saturated();
        nextWindow();
        assertThat(share.budget()).isEqualTo(FairShare.MIN_BUDGET);
    }

    @Test
    void aWindowWithoutRequestsForgetsTheLoad() {
        requests("load", 700);
        requests("producer", 100);
        share.saturated();
        clock.advance(3 * FairShare.WINDOW_MS);
        assertThat(share.budget()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void probeReportsALoopThatWaitedTooLong() {
        AtomicLong nanos = new AtomicLong(0);
        List<Runnable> queued = new ArrayList<>();
        FairShare.Probe probe = new FairShare.Probe(share, queued::add, nanos::get);
        requests("load", 700);
        requests("producer", 100);
        probe.poke();
        probe.poke(); // one probe queued at a time
        assertThat(queued).hasSize(1);
        nanos.addAndGet(FairShare.SATURATED_LAG_NANOS - 1);
        queued.remove(0).run();
        nextWindow();
        assertThat(share.budget()).as("a short wait is no saturation").isEqualTo(Long.MAX_VALUE);

        requests("load", 700);
        requests("producer", 100);
        nanos.addAndGet(FairShare.PROBE_INTERVAL_NANOS);
        probe.poke();
        assertThat(queued).hasSize(1);
        nanos.addAndGet(FairShare.SATURATED_LAG_NANOS);
        queued.remove(0).run();
        nextWindow();
        assertThat(share.budget()).isEqualTo(500);
    }
}
