package io.brook.cluster.member;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.cluster.metadata.Endpoint;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BrokerRegistrationTest {
    private static final List<Endpoint> LISTENERS = List.of(new Endpoint("PLAINTEXT", "localhost", 9092));

    @Test
    void kafkasDefaultsApplyWhenTheKeysAreAbsent() {
        BrokerRegistration r = BrokerRegistration.fromProperties(Map.of(), LISTENERS);
        assertThat(r.heartbeatIntervalMs()).isEqualTo(2000);
        assertThat(r.sessionTimeoutMs()).isEqualTo(9000);
        assertThat(r.rack()).isNull();
        assertThat(r.listeners()).isEqualTo(LISTENERS);
    }

    @Test
    void theKeysAreReadByKafkasNames() {
        BrokerRegistration r = BrokerRegistration.fromProperties(Map.of("broker.rack", " r1 ",
                "broker.heartbeat.interval.ms", "500", "broker.session.timeout.ms", "3000"), LISTENERS);
        assertThat(r.rack()).isEqualTo("r1");
        assertThat(r.heartbeatIntervalMs()).isEqualTo(500);
        assertThat(r.sessionTimeoutMs()).isEqualTo(3000);
    }

    @Test
    void badValuesAreRefusedWithTheKeyNamed() {
        assertThatThrownBy(() -> BrokerRegistration.fromProperties(Map.of("broker.session.timeout.ms", "soon"),
                LISTENERS)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("broker.session.timeout.ms");
        assertThatThrownBy(() -> BrokerRegistration.fromProperties(Map.of("broker.session.timeout.ms", "1000"),
                LISTENERS)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must be longer than broker.heartbeat.interval.ms");
        assertThatThrownBy(() -> BrokerRegistration.fromProperties(Map.of("broker.heartbeat.interval.ms", "0"),
                LISTENERS)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("broker.heartbeat.interval.ms must be positive");
    }
}
