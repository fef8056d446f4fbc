package io.brook.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The SASL fuzzer's short version: 8 connections, 6,000 frames at a SASL_PLAINTEXT listener, beside clients that logged in. */
class SaslFuzzTest {

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void brokerSurvivesMutatedLoginsAndServesOthers(@TempDir Path work) throws Exception {
        ScenarioResult r = TestEnv.run(new SaslFuzz(SaslFuzz.test()), work);

        assertThat(r.status()).as(r.toString()).isEqualTo(ScenarioResult.Status.PASS);
    }
}
