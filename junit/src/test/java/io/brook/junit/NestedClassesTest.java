package io.brook.junit;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.Brook;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

@BrookTest(topics = "outer")
class NestedClassesTest {

    @Broker
    static Brook outer;

    @Test
    void theOuterClassHasItsBroker(Brook brook) {
        assertThat(brook).isSameAs(outer);
    }

    @Nested
    class Inner {
        @Broker
        String bootstrap;

        @Test
        void aNestedClassSharesTheEnclosingBroker(Brook brook) {
            assertThat(brook).isSameAs(outer);
            assertThat(bootstrap).isEqualTo(outer.bootstrapServers());
            assertThat(brook.createTopic("outer", 1)).isFalse();
        }
    }
}
