package io.brook.junit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Properties;
import org.junit.jupiter.api.Test;

class TestJvmDefaultsTest {

    @Test
    @BrookTest
    void aBrokerOfTheExtensionTurnsNettysFlightRecorderEventsOff(@Broker String bootstrapServers) {
        assertThat(bootstrapServers).isNotEmpty();
        assertThat(System.getProperty(TestJvmDefaults.NETTY_JFR)).isEqualTo("false");
    }

    @Test
    void aValueAlreadySetWins() {
        Properties unset = new Properties();
        TestJvmDefaults.apply(unset);
        assertThat(unset.getProperty(TestJvmDefaults.NETTY_JFR)).isEqualTo("false");

        Properties set = new Properties();
        set.setProperty(TestJvmDefaults.NETTY_JFR, "true");
        TestJvmDefaults.apply(set);
        assertThat(set.getProperty(TestJvmDefaults.NETTY_JFR)).isEqualTo("true");
    }
}
