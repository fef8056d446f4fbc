package io.brook.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The power-cut scenarios' short versions: five kills under load, each followed by a power cut of
 * the data directory's FUSE file system (every other one torn), alone and as a one-node cluster;
 * and three cuts of a whole three-voter cluster, each node on its own FUSE file system.
 * Needs root and /dev/fuse (skipped otherwise, with the reason); in CI a missing python3-fusepy
 * fails it, since {@code .ci/run} installs it.
 */
class PowerCutTest {

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void whatWasAcknowledgedOrConsumedSurvivesPowerCuts(@TempDir Path work) throws Exception {
        check(TestEnv.run(new CrashLoop(CrashLoop.Params.test(), false, true), work));
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aOneNodeClusterKeepsWhatItAcknowledgedThroughPowerCuts(@TempDir Path work) throws Exception {
        check(TestEnv.run(new CrashLoop(CrashLoop.Params.test(), true, true), work));
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aThreeVoterClusterKeepsWhatItAcknowledgedThroughCutsOfAllThree(@TempDir Path work) throws Exception {
        check(TestEnv.run(new QuorumPowerCut(QuorumPowerCut.Params.test()), work), "power cuts of the whole cluster", 3,
                "unforced pages lost, all nodes");
    }

    private static void check(ScenarioResult r) {
        check(r, "power cuts", 5, "unforced pages lost");
    }

    private static void check(ScenarioResult r, String cutsFigure, int cuts, String pagesLostFigure) {
        if (System.getenv("CI") != null) {
            assertThat(PowerCutFileSystem.missingPython()).as("python3-fusepy, installed by .ci/run").isNull();
        }
        Assumptions.assumeTrue(r.status() != ScenarioResult.Status.SKIP, r.skipReason());
        assertThat(r.status()).as(r.toString()).isEqualTo(ScenarioResult.Status.PASS);
        assertThat(r.figure(cutsFigure).value()).isEqualTo(Integer.toString(cuts));
        assertThat(r.figure("records acknowledged").value()).isNotEqualTo("0");
        // the cuts took something: otherwise nothing was tested
        assertThat(Long.parseLong(r.figure(pagesLostFigure).value())).as(r.toString()).isPositive();
    }
}
