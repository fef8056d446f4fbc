package io.brook.coordinator.group;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Kafka's checks of a group's own settings against the broker's group.consumer.* bounds. */
class GroupSettingsCheckTest {

    private static final String SESSION = ConsumerGroupConfig.GROUP_SESSION_TIMEOUT_MS;
    private static final String HEARTBEAT = ConsumerGroupConfig.GROUP_HEARTBEAT_INTERVAL_MS;

    private static String problem(Map<String, String> broker, Map<String, String> group) {
        return ConsumerGroupConfig.groupSettingsProblem(broker, group);
    }

    @Test
    void valuesWithinTheBrokersBoundsAreAccepted() {
        assertThat(problem(Map.of(), Map.of())).isNull();
        assertThat(problem(Map.of(), Map.of(SESSION, "45000", HEARTBEAT, "15000"))).isNull();
        assertThat(problem(Map.of(), Map.of(SESSION, "60000", HEARTBEAT, "5000"))).isNull();
        assertThat(problem(Map.of("group.consumer.min.heartbeat.interval.ms", "500"), Map.of(HEARTBEAT, " 500 ")))
                .isNull();
    }

    @Test
    void valuesOutsideTheBoundsAreRefusedWithKafkasWords() {
        assertThat(problem(Map.of(), Map.of(SESSION, "44999")))
                .isEqualTo("consumer.session.timeout.ms must be in the range 45000 to 60000 inclusive.");
        assertThat(problem(Map.of(), Map.of(SESSION, "60001"))).contains("45000 to 60000");
        assertThat(problem(Map.of(), Map.of(HEARTBEAT, "4999")))
                .isEqualTo("consumer.heartbeat.interval.ms must be in the range 5000 to 15000 inclusive.");
        assertThat(problem(Map.of("group.consumer.max.heartbeat.interval.ms", "20000"), Map.of(HEARTBEAT, "20000")))
                .isNull();
    }

    @Test
    void theSessionTimeoutMustStayAboveTheHeartbeatIntervalCountingTheBrokersValues() {
        Map<String, String> wide = Map.of("group.consumer.min.session.timeout.ms", "1000",
                "group.consumer.max.heartbeat.interval.ms", "50000");
        assertThat(problem(wide, Map.of(SESSION, "6000", HEARTBEAT, "6000")))
                .isEqualTo("consumer.session.timeout.ms must be greater than consumer.heartbeat.interval.ms");
        // the broker's heartbeat interval (5000 by default) against the group's session timeout
        assertThat(problem(wide, Map.of(SESSION, "5000"))).isNotNull();
        assertThat(problem(wide, Map.of(SESSION, "5001"))).isNull();
        // the broker's session timeout (45000 by default) against the group's heartbeat interval
        assertThat(problem(wide, Map.of(HEARTBEAT, "45000"))).isNotNull();
    }

    @Test
    void namesAndNumbersAreChecked() {
        assertThat(problem(Map.of(), Map.of("consumer.nonsense", "1"))).isEqualTo("Unknown group config name: consumer.nonsense");
        assertThat(problem(Map.of(), Map.of("share.record.lock.duration.ms", "30000")))
                .startsWith("Group config share.record.lock.duration.ms is not supported");
        assertThat(problem(Map.of(), Map.of(SESSION, "soon")))
                .isEqualTo("Invalid value soon for configuration consumer.session.timeout.ms: Not a number of type INT");
        assertThat(problem(Map.of(), Map.of(HEARTBEAT, "0"))).contains("Value must be at least 1");
    }
}
