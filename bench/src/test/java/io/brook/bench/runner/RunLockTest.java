package io.brook.bench.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A second runner of the same checkout is refused while the first one lives, and let in after it;
 * the first one's child runners are let in.
 */
class RunLockTest {
    @TempDir
    Path work;

    /** The other runner: takes the lock of the directory in args[0], says so, and waits for its stdin to close. */
    public static final class OtherRunner {
        public static void main(String[] args) throws Exception {
            System.out.println(RunLock.acquire(Paths.get(args[0])) ? "locked" : "refused");
            System.out.flush();
            while (System.in.read() >= 0) {
                // hold the lock until the test closes our stdin
            }
        }
    }

    @Test
    @Timeout(60)
    void shouldRefuseASecondRunWhileTheFirstHoldsTheLock() throws Exception {
        Path java = Paths.get(System.getProperty("java.home"), "bin", "java");
        Process other = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                OtherRunner.class.getName(), work.toString()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(other.getInputStream(), StandardCharsets.UTF_8));
            assertThat(out.readLine()).isEqualTo("locked");
            assertThat(RunLock.acquire(work)).isFalse();
            assertThat(RunLock.mayRun(false, work)).as("a second bench/run").isFalse();
            assertThat(RunLock.mayRun(true, work)).as("a child runner of the run that holds the lock").isTrue();
            other.getOutputStream().close();
            assertThat(other.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(RunLock.acquire(work)).as("the first run ended").isTrue();
        } finally {
            other.destroyForcibly();
        }
    }
}
