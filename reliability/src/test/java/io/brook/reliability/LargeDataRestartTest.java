package io.brook.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The large-data restart's short version: 8 MiB at acks=1, a kill -9 right after, two restarts. */
class LargeDataRestartTest {

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void everyAcknowledgedRecordIsThereAfterTheKill(@TempDir Path work) throws Exception {
        ScenarioResult r = TestEnv.run(LargeDataRestart.test(), work);

        assertThat(r.status()).as(r.toString()).isEqualTo(ScenarioResult.Status.PASS);
        String name = "large data dir (8 MiB)";
        assertThat(r.figure(name + ": records after recovery").value())
                .isEqualTo(r.figure(name + ": acks=1 records acknowledged before the kill").value());
        assertThat(r.figure(name + ": time to ready after kill -9 max").value()).isNotEmpty();
    }
}
