package io.brook.server.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.server.Brook;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code socket.listen.backlog.size} is the listening socket's backlog, read back from the kernel
 * with {@code ss} (its Send-Q column of a listening socket is the backlog, capped by
 * {@code net.core.somaxconn}); Brook's default is 1024 where Kafka's is 50.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ListenBacklogTest {

    /** The backlog the kernel holds for the listening socket on {@code port}. */
    private static int backlog(int port) throws IOException, InterruptedException {
        Process ss;
        try {
            ss = new ProcessBuilder("ss", "-Hltn", "sport = :" + port).redirectErrorStream(true).start();
        } catch (IOException e) {
            // CI installs iproute2 (.ci/run), so there a missing ss fails the test rather than skipping it
            Assumptions.assumeTrue("true".equalsIgnoreCase(System.getenv("CI")),
                    "needs ss (iproute2) to read a listening socket's backlog: " + e.getMessage());
            throw e;
        }
        String out = new String(ss.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(ss.waitFor(30, TimeUnit.SECONDS)).isTrue();
        String[] columns = out.split("\\s+");
        assertThat(columns).as("ss output: %s", out).hasSizeGreaterThan(3);
        assertThat(columns[0]).as("ss output: %s", out).isEqualTo("LISTEN");
        return Integer.parseInt(columns[2]);
    }

    private static int somaxconn() throws IOException {
        // readAllLines: Files.readString takes the size procfs reports and returned "4" of "4096"
        return Integer.parseInt(Files.readAllLines(Path.of("/proc/sys/net/core/somaxconn")).get(0).trim());
    }

    @Test
    void shouldListenWithTheConfiguredBacklog() throws Exception {
        try (Brook brook = Brook.builder().port(0).config("socket.listen.backlog.size", "37").start()) {
            assertThat(backlog(brook.port())).isEqualTo(37);
        }
    }

    @Test
    void shouldListenWithBrooksDefaultBacklog() throws Exception {
        try (Brook brook = Brook.builder().port(0).start()) {
            assertThat(backlog(brook.port())).isEqualTo(Math.min(1024, somaxconn()));
        }
    }

    @Test
    void shouldRefuseABacklogBelowOne() {
        assertThatThrownBy(() -> Brook.builder().port(0).config("socket.listen.backlog.size", "0").start())
                .hasMessageContaining("socket.listen.backlog.size").hasMessageContaining("at least 1");
    }
}
