package io.brook.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.server.config.BrokerConfig;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The inter-broker listener is chosen as Kafka chooses it: {@code inter.broker.listener.name}, or
 * the listener named after {@code security.inter.broker.protocol} (PLAINTEXT by default), never both.
 */
class InterBrokerListenerTest {

    private static BrokerConfig config(String... keyValues) {
        Map<String, String> m = new HashMap<>();
        m.put("listeners", "PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0,INTERNAL://127.0.0.1:0");
        m.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,SASL_SSL:SASL_SSL,INTERNAL:SSL");
        for (int i = 0; i < keyValues.length; i += 2) {
            m.put(keyValues[i], keyValues[i + 1]);
        }
        return BrokerConfig.parse(m);
    }

    @Test
    void shouldUseTheListenerNamedPlaintextWhenNothingIsSet() {
        assertThat(ClusterMode.interBrokerListener(config())).isEqualTo("PLAINTEXT");
    }

    @Test
    void shouldUseTheNamedListener() {
        assertThat(ClusterMode.interBrokerListener(config("inter.broker.listener.name", "internal"))).isEqualTo("INTERNAL");
    }

    @Test
    void shouldUseTheListenerNamedAfterTheInterBrokerSecurityProtocol() {
        BrokerConfig c = config("security.inter.broker.protocol", "SASL_SSL");
        assertThat(c.unknownKeys()).doesNotContain("security.inter.broker.protocol");
        assertThat(ClusterMode.interBrokerListener(c)).isEqualTo("SASL_SSL");
    }

    @Test
    void shouldRefuseBothWaysOfNamingIt() {
        assertThatThrownBy(() -> ClusterMode.interBrokerListener(config("inter.broker.listener.name", "INTERNAL",
                "security.inter.broker.protocol", "SASL_SSL")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("inter.broker.listener.name").hasMessageContaining("security.inter.broker.protocol");
    }

    @Test
    void shouldRefuseAProtocolWithoutAListenerOfItsNameOrThatIsNoProtocol() {
        assertThatThrownBy(() -> ClusterMode.interBrokerListener(config("security.inter.broker.protocol", "SSL")))
                .hasMessageContaining("the inter-broker listener SSL (named after security.inter.broker.protocol")
                .hasMessageContaining("is not one of the listeners");
        assertThatThrownBy(() -> config("security.inter.broker.protocol", "TLS"))
                .hasMessageContaining("security.inter.broker.protocol").hasMessageContaining("must be one of");
    }
}
