package io.brook.server.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class AcceptFailuresTest {
    private final AtomicLong now = new AtomicLong(1_000);
    private final AcceptFailures failures = new AcceptFailures("PLAINTEXT", () -> 700, now::get);

    @Test
    void aProcessOutOfDescriptorsIsSaidInWordsWithItsLimit() {
        String line = failures.failed(new IOException("accept(..) failed: Too many open files"));

        assertThat(line).startsWith("Listener PLAINTEXT cannot accept connections: this process has all the 700"
                + " file descriptors it may open (Too many open files)")
                .contains("wait in the listen backlog").contains("ulimit -n").contains("max.connections");
    }

    @Test
    void aMachineOutOfDescriptorsNamesTheSystemsLimit() {
        assertThat(failures.failed(new IOException("accept(..) failed: Too many open files in system")))
                .contains("the machine is out of file descriptors").contains("fs.file-max")
                .doesNotContain("ulimit");
    }

    @Test
    void otherFailuresAreLoggedAsTheyCame() {
        assertThat(failures.failed(new IOException("accept(..) failed: Cannot allocate memory")))
                .isEqualTo("Listener PLAINTEXT cannot accept connections: java.io.IOException: accept(..) failed:"
                        + " Cannot allocate memory (tried again every second)");
    }

    @Test
    void aLastingFailureIsLoggedOncePerQuietPeriodWithTheFailuresInBetween() {
        IOException emfile = new IOException("Too many open files");
        assertThat(failures.failed(emfile)).isNotNull();
        for (int i = 0; i < 59; i++) {
            now.addAndGet(1_000);
            assertThat(failures.failed(emfile)).as("second %d", i + 1).isNull();
        }
        now.addAndGet(1_000);
        assertThat(failures.failed(emfile)).endsWith("(59 more failed accepts since the last warning)");
        now.addAndGet(AcceptFailures.QUIET_MS);
        assertThat(failures.failed(emfile)).doesNotContain("more failed accepts");
    }

    @Test
    void theFailureStopsHereInsteadOfReachingTheEndOfThePipeline() {
        EmbeddedChannel channel = new EmbeddedChannel(failures);
        channel.pipeline().fireExceptionCaught(new IOException("Too many open files"));

        channel.checkException(); // throws what reached the end of the pipeline
        assertThat(failures.failed(new IOException("Too many open files"))).isNull();
        channel.finishAndReleaseAll();
    }
}
