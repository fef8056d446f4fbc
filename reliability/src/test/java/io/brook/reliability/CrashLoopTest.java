package io.brook.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The crash loop's short version: five kill -9s (one during start-up) under load, alone and as a one-node cluster. */
class CrashLoopTest {

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void acknowledgedRecordsAndCommittedOffsetsSurviveKills(@TempDir Path work) throws Exception {
        ScenarioResult r = TestEnv.run(new CrashLoop(CrashLoop.Params.test(), false), work);

        assertThat(r.status()).as(r.toString()).isEqualTo(ScenarioResult.Status.PASS);
        assertThat(r.figure("kills during start-up").value()).isEqualTo("1");
        assertThat(r.figure("records acknowledged").value()).isNotEqualTo("0");
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aOneNodeClusterStartsAgainAfterEveryKillAndKeepsWhatItAcknowledged(@TempDir Path work) throws Exception {
        ScenarioResult r = TestEnv.run(new CrashLoop(CrashLoop.Params.test(), true), work);

        assertThat(r.status()).as(r.toString()).isEqualTo(ScenarioResult.Status.PASS);
        assertThat(r.figure("kills during start-up").value()).isEqualTo("1");
        assertThat(r.figure("records acknowledged").value()).isNotEqualTo("0");
    }
}
