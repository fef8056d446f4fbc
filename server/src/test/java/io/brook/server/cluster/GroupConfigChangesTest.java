package io.brook.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.cluster.metadata.MetadataRecord.GroupConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The records a change of a group's settings becomes: only what differs from the image, keys in order. */
class GroupConfigChangesTest {

    private static final String SESSION = "consumer.session.timeout.ms";
    private static final String HEARTBEAT = "consumer.heartbeat.interval.ms";

    @Test
    void newAndChangedKeysAreSetAndKeysThatGoAreRemoved() {
        assertThat(MetadataLogSecurity.groupConfigChanges("g", Map.of(SESSION, "45000", HEARTBEAT, "3000"),
                Map.of(SESSION, "50000"))).containsExactly(
                        new GroupConfig("g", HEARTBEAT, null),
                        new GroupConfig("g", SESSION, "50000"));
        assertThat(MetadataLogSecurity.groupConfigChanges("g", Map.of(), Map.of(SESSION, "50000", HEARTBEAT, "4000")))
                .containsExactly(new GroupConfig("g", HEARTBEAT, "4000"), new GroupConfig("g", SESSION, "50000"));
    }

    @Test
    void keysThatStayAsTheyAreAreNotWritten() {
        assertThat(MetadataLogSecurity.groupConfigChanges("g", Map.of(SESSION, "50000", HEARTBEAT, "3000"),
                Map.of(SESSION, "50000", HEARTBEAT, "5000"))).containsExactly(new GroupConfig("g", HEARTBEAT, "5000"));
        assertThat(MetadataLogSecurity.groupConfigChanges("g", Map.of(SESSION, "50000"), Map.of(SESSION, "50000")))
                .isEmpty();
        assertThat(MetadataLogSecurity.groupConfigChanges("g", Map.of(), Map.of())).isEmpty();
    }

    @Test
    void emptySettingsRemoveEveryKeyTheGroupHas() {
        assertThat(MetadataLogSecurity.groupConfigChanges("g", Map.of(SESSION, "50000", HEARTBEAT, "3000"), Map.of()))
                .containsExactly(new GroupConfig("g", HEARTBEAT, null), new GroupConfig("g", SESSION, null));
    }
}
