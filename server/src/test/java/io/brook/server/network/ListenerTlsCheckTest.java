package io.brook.server.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.server.TestKeyStores;
import io.brook.server.config.BrokerConfig;
import io.brook.server.time.ClockTimer;
import io.netty.handler.ssl.OpenSsl;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A TLS listener whose context cannot be built stops the start before any listener opens its
 * port: no client reaches an earlier listener of a broker that is about to exit.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ListenerTlsCheckTest {

    @TempDir
    Path dir;

    private final ExecutorService pool = Executors.newSingleThreadExecutor();

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    @Test
    void aLaterListenersTlsErrorStopsTheStartBeforeAnyPortOpens() throws Exception {
        // the failure used: a suite list of which BoringSSL has nothing (3DES only)
        Assumptions.assumeTrue(OpenSsl.isAvailable(), "needs the bundled OpenSSL engine (linux-x86_64)");
        Path store = TestKeyStores.create(dir, "broker", "CN=localhost", "dns:localhost,ip:127.0.0.1");
        BrokerConfig config = BrokerConfig.parse(Map.of(
                "listeners", "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0",
                "ssl.keystore.type", "PKCS12",
                "ssl.keystore.location", store.toString(),
                "ssl.keystore.password", TestKeyStores.PASSWORD,
                "ssl.cipher.suites", "TLS_RSA_WITH_3DES_EDE_CBC_SHA"));
        NetworkServer server = new NetworkServer(config, pool, new ClockTimer(Clock.systemUTC()));

        assertThatThrownBy(server::bind)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Invalid TLS configuration of listener SSL");
        assertThat(server.boundAddresses()).isEmpty();
        assertThat(server.eventLoops().isShuttingDown()).isTrue();
    }
}
