package io.brook.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The TLS fuzzer's short version: 8 connections, 4,000 frames at two SSL listeners (BoringSSL and the JDK's engine), beside clients with a trusted certificate. */
class TlsFuzzTest {

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void brokerSurvivesDamagedTlsAndServesOthers(@TempDir Path work) throws Exception {
        ScenarioResult r = TestEnv.run(new TlsFuzz(TlsFuzz.test()), work);

        assertThat(r.status()).as(r.toString()).isEqualTo(ScenarioResult.Status.PASS);
    }
}
