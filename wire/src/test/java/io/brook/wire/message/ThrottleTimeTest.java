package io.brook.wire.message;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The generated top-level ThrottleTimeMs helpers: raised to the longest, lowered not below 0. */
class ThrottleTimeTest {

    @Test
    void aResponsesThrottleIsRaisedAndLowered() {
        ProduceResponse r = new ProduceResponse().throttleTimeMs(1621);
        assertThat(r.raiseThrottleTimeMs(1000)).isTrue();
        assertThat(r.throttleTimeMs()).isEqualTo(1621);
        assertThat(r.lowerThrottleTimeMs(1306)).isTrue();
        assertThat(r.throttleTimeMs()).isEqualTo(315);
        r.lowerThrottleTimeMs(5_000);
        assertThat(r.throttleTimeMs()).isZero();
    }

    @Test
    void messagesWithoutTheFieldAreLeftAlone() {
        assertThat(new ProduceRequest().lowerThrottleTimeMs(10)).isFalse();
        assertThat(new SaslHandshakeResponse().lowerThrottleTimeMs(10)).isFalse();
    }
}
