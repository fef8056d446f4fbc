package io.brook.server.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.time.ClockTimer;
import io.brook.testkit.MutableClock;
import io.netty.channel.DefaultEventLoop;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A connection's quota mute: a longer throttle extends it, and each throttle tells how much of
 * it the mute already running covers, which the answer does not tell the client again.
 */
class ThrottleMuteTest {

    private final MutableClock clock = new MutableClock(1_000_000L);
    private final ClockTimer timer = new ClockTimer(clock);
    private final DefaultEventLoop loop = new DefaultEventLoop();

    @AfterEach
    void stop() {
        loop.shutdownGracefully(0, 0, java.util.concurrent.TimeUnit.MILLISECONDS);
        timer.close();
    }

    @Test
    void pipelinedThrottlesTellOnlyWhatTheRunningMuteDoesNotCover() {
        ThrottleMute mute = new ThrottleMute(() -> { });
        mute.timer(timer);

        // five requests read together, each charged after the ones before it (the pattern measured
        // against a producer_byte_rate quota): only the first answer tells its whole throttle
        assertThat(mute.mute(1306, loop)).isZero();
        assertThat(mute.muted()).isTrue();
        assertThat(mute.mute(1621, loop)).isEqualTo(1306);
        clock.advance(100);
        assertThat(mute.mute(1837, loop)).as("100 ms later").isEqualTo(1521);
        assertThat(mute.mute(1000, loop)).as("within the running mute").isEqualTo(1000);

        clock.advance(5_000);
        assertThat(mute.mute(300, loop)).as("after the mute ended").isZero();
    }
}
