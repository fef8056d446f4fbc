package io.brook.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.testkit.MutableClock;
import org.junit.jupiter.api.Test;

/** The replication throttle's token bucket, on a manual clock. */
class ByteRateLimiterTest {

    private final MutableClock clock = new MutableClock(1_000_000);
    private final ByteRateLimiter limiter = new ByteRateLimiter(clock);

    @Test
    void unlimitedNeverWaits() {
        for (int i = 0; i < 1000; i++) {
            assertThat(limiter.delayMs(1 << 20, ByteRateLimiter.UNLIMITED)).isZero();
        }
    }

    @Test
    void aFetcherThatWaitsAsToldMovesTheRateAfterTheFirstSecondsBudget() {
        long sent = 0;
        long end = clock.millis() + 10_000;
        while (clock.millis() < end) {
            long wait = limiter.delayMs(300, 1000);
            if (wait == 0) {
                sent += 300;
            } else {
                clock.advance(wait);
            }
        }
        // one second's budget at once, then 1000 bytes a second, give or take one fetch
        assertThat(sent).isBetween(10_000L, 11_000L + 300);
    }

    @Test
    void aFetchLargerThanTheBudgetGoesAndTheNextOnesWaitOutItsDebt() {
        assertThat(limiter.delayMs(5000, 1000)).isZero();
        assertThat(limiter.delayMs(1, 1000)).isEqualTo(4000);
        clock.advance(3999);
        assertThat(limiter.delayMs(1, 1000)).isEqualTo(1);
        clock.advance(2);
        assertThat(limiter.delayMs(1, 1000)).isZero();
    }

    @Test
    void aZeroRateLetsNothingGoAndAskAgainLater() {
        assertThat(limiter.delayMs(1, 0)).isEqualTo(ByteRateLimiter.ZERO_RATE_RECHECK_MS);
        clock.advance(60_000);
        assertThat(limiter.delayMs(1, 0)).isEqualTo(ByteRateLimiter.ZERO_RATE_RECHECK_MS);
        assertThat(limiter.delayMs(1, ByteRateLimiter.UNLIMITED)).isZero();
    }

    @Test
    void aChangedRateAppliesAtOnceAndKeepsTheDebt() {
        assertThat(limiter.delayMs(3000, 1000)).isZero();
        // 2000 bytes of debt at the new rate of 100 bytes/s: 20 s
        assertThat(limiter.delayMs(1, 100)).isEqualTo(20_000);
        // lifting the throttle lets everything go
        assertThat(limiter.delayMs(1 << 20, ByteRateLimiter.UNLIMITED)).isZero();
        // and a throttle set again starts with a full second's budget
        assertThat(limiter.delayMs(100, 100)).isZero();
        assertThat(limiter.delayMs(1, 100)).isPositive();
    }

    @Test
    void negativeArgumentsAreRefused() {
        assertThatThrownBy(() -> limiter.delayMs(-1, 10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> limiter.delayMs(1, -10)).isInstanceOf(IllegalArgumentException.class);
    }
}
