package io.brook.server.security.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The token bucket of controller_mutation_rate: its burst, its refill, its debt. */
class TokenBucketTest {

    @Test
    void theBurstIsTheRateOverAllWindows() {
        assertThat(TokenBucket.burst(2, 11, 1000)).isEqualTo(22.0);
        assertThat(TokenBucket.burst(0.5, 4, 2000)).isEqualTo(4.0);
    }

    @Test
    void takingGoesBelowZeroAndTheRateRefillsUpToTheBurst() {
        double rate = 2;
        double burst = 22;
        TokenBucket b = new TokenBucket(burst, 1_000);
        assertThat(b.take(20, rate, burst, 1_000)).isEqualTo(2.0);
        assertThat(b.take(5, rate, burst, 1_000)).as("a debt").isEqualTo(-3.0);
        assertThat(b.tokens(rate, burst, 1_500)).isCloseTo(-2.0, within(1e-9));
        assertThat(TokenBucket.msToZero(-2.0, rate)).isEqualTo(1_000);
        assertThat(b.tokens(rate, burst, 2_500)).isCloseTo(0.0, within(1e-9));
        assertThat(b.tokens(rate, burst, 60_000)).as("never above the burst").isEqualTo(burst);
        assertThat(b.tokens(rate, burst, 59_000)).as("time going back adds nothing").isEqualTo(burst);
    }

    @Test
    void aLowerQuotaCapsTheBalanceAtItsBurst() {
        TokenBucket b = new TokenBucket(22, 0);
        assertThat(b.tokens(1, 11, 0)).isEqualTo(11.0);
        assertThat(b.take(1, 1, 11, 0)).isEqualTo(10.0);
    }

    @Test
    void noDebtNoWait() {
        assertThat(TokenBucket.msToZero(0, 5)).isZero();
        assertThat(TokenBucket.msToZero(3, 5)).isZero();
        assertThat(TokenBucket.msToZero(-1, 5)).isEqualTo(200);
    }
}
