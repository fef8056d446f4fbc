package io.brook.coordinator.group;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ConsumerSubscriptionTest {

    @Test
    void shouldReadConsumerSubscriptionTopicsAndRejectGarbage() {
        assertThat(ConsumerSubscription.topics(GroupHarness.subscription("a", "b"))).containsExactlyInAnyOrder("a", "b");
        assertThat(ConsumerSubscription.topics(new byte[]{0, 0, 0x7f, 0, 0, 0})).isNull();
        assertThat(ConsumerSubscription.topics(new byte[]{0, 0, 0, 0, 0, 1, 0, 9, 'x'})).isNull();
        assertThat(ConsumerSubscription.topics(new byte[]{1})).isNull();
        assertThat(ConsumerSubscription.topics(null)).isNull();
    }
}
