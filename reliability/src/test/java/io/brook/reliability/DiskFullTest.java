package io.brook.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The disk-full scenario's short version on a 64 MiB file system (needs root; skipped otherwise).
 * It asserts every check: nothing acknowledged is lost, the full disk is answered with a
 * retriable error, reads go on while it is full, and writes resume by themselves once space is
 * freed, without a restart.
 */
class DiskFullTest {

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void fullDiskLosesNothing(@TempDir Path work) throws Exception {
        ScenarioResult r = TestEnv.run(new DiskFull(DiskFull.Params.test()), work);

        Assumptions.assumeTrue(r.status() != ScenarioResult.Status.SKIP, r.skipReason());
        assertThat(r.error()).as(r.toString()).isNull();
        assertThat(r.check(DiskFull.RETRIABLE).passed()).as(r.toString()).isTrue();
        assertThat(r.check(DiskFull.NO_LOSS).passed()).as(r.toString()).isTrue();
        assertThat(r.check(DiskFull.COMMITS_KEPT).passed()).as(r.toString()).isTrue();
        assertThat(r.check(DiskFull.READS).passed()).as(r.toString()).isTrue();
        assertThat(r.check(DiskFull.RESUMES).passed()).as(r.toString()).isTrue();
    }
}
