package io.brook.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The transactional power-cut scenario's short version: four kills of the broker under an
 * exactly-once copier, each followed by a power cut of the data directory's FUSE file system.
 * Needs root and /dev/fuse (skipped otherwise, with the reason); in CI a missing python3-fusepy
 * fails it, since {@code .ci/run} installs it.
 */
class TransactionalPowerCutTest {

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void transactionsCopyEveryRecordExactlyOnceThroughPowerCuts(@TempDir Path work) throws Exception {
        ScenarioResult r = TestEnv.run(new TransactionalPowerCut(TransactionalPowerCut.Params.test()), work);
        if (System.getenv("CI") != null) {
            assertThat(PowerCutFileSystem.missingPython()).as("python3-fusepy, installed by .ci/run").isNull();
        }
        Assumptions.assumeTrue(r.status() != ScenarioResult.Status.SKIP, r.skipReason());
        assertThat(r.status()).as(r.toString()).isEqualTo(ScenarioResult.Status.PASS);
        assertThat(r.figure("power cuts").value()).isEqualTo("4");
        assertThat(r.figure("transactions committed (commit returned)").value()).isNotEqualTo("0");
        assertThat(Long.parseLong(r.figure("unforced pages lost").value())).as(r.toString()).isPositive();
    }
}
