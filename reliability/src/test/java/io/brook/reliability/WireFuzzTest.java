package io.brook.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The wire fuzzer's short version: 8 connections, 15,000 frames, beside well-behaved clients. */
class WireFuzzTest {

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void brokerSurvivesMutatedFramesAndServesOthers(@TempDir Path work) throws Exception {
        ScenarioResult r = TestEnv.run(new WireFuzz(WireFuzz.test()), work);

        assertThat(r.status()).as(r.toString()).isEqualTo(ScenarioResult.Status.PASS);
    }
}
