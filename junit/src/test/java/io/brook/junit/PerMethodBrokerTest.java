package io.brook.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.server.Brook;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
@BrookTest(perMethod = true, topics = "fresh")
class PerMethodBrokerTest {

    @Broker
    Brook brook;

    @Test
    void eachTestGetsItsOwnBrokerInATemporaryDirectory(Brook parameter) {
        assertThat(parameter).isSameAs(brook);
        assertThat(brook.dataDir().getFileName().toString()).startsWith("brook-");
        assertThat(brook.createTopic("fresh", 1)).as("declared topic exists already").isFalse();
        assertThat(brook.createTopic("made-here", 1)).isTrue();
    }

    @Test
    void aSecondTestDoesNotSeeTheFirstOnesTopics() {
        assertThat(brook.createTopic("made-here", 1)).isTrue();
    }

    @Test
    @BrookTest(topics = "own")
    void aMethodAnnotationGivesThatTestItsOwnSettings(Brook own) {
        assertThat(own.createTopic("own", 1)).isFalse();
        assertThat(own.createTopic("fresh", 1)).isTrue();
    }

    @Test
    void severalBrokersAreToldApartByName(@Broker("a") Brook a, @Broker("b") Brook b, @Broker("a") String aServers) {
        assertThat(a).isNotSameAs(b).isNotSameAs(brook);
        assertThat(a.port()).isNotEqualTo(b.port());
        assertThat(aServers).isEqualTo(a.bootstrapServers());
        assertThat(Files.isDirectory(a.dataDir())).isTrue();
        Path dir = a.dataDir();
        assertThat(dir).isNotEqualTo(b.dataDir());
    }

    @Test
    @BrookTest(faults = false)
    void aBrokerWithoutFaultsRunsAsInProductionAndHasNoHooks(Brook plain) {
        assertThatThrownBy(plain::faults).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(plain::crash).isInstanceOf(IllegalStateException.class);
        plain.restart();
        assertThat(plain.isRunning()).isTrue();
    }
}
