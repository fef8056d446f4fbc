package io.brook.junit;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URL;
import java.net.URLClassLoader;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClientWarmupTest {

    private final ClassLoader testLoader = ClientWarmupTest.class.getClassLoader();

    @Test
    void findsTheTestsKafkaClients() {
        assertThat(ClientWarmup.present(testLoader)).isTrue();
    }

    @Test
    void doesNothingWithoutKafkaClientsOnTheClassPath() throws Exception {
        try (URLClassLoader jdkOnly = new URLClassLoader(new URL[0], ClassLoader.getPlatformClassLoader())) {
            assertThat(ClientWarmup.present(jdkOnly)).isFalse();
            assertThat(ClientWarmup.startOnce(true, jdkOnly)).isNull();
        }
    }

    @Test
    void doesNothingWhenTurnedOff() {
        assertThat(ClientWarmup.startOnce(false, testLoader)).isNull();
    }

    @Test
    void runsAtMostOncePerJvmAndEnds() throws Exception {
        Thread first = ClientWarmup.startOnce(true, testLoader); // null when a broker of this JVM started it already
        assertThat(ClientWarmup.startOnce(true, testLoader)).isNull();
        if (first != null) {
            assertThat(first.isDaemon()).isTrue();
            first.join();
        }
    }
}
