package io.brook.cluster.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A second process with a node id that is running already finds that node's controller listener
 * taken: it is refused with a message naming the node id, before its metadata directory is
 * stamped, instead of Ratis exiting the JVM on a bind failure.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ControllerAddressCheckTest {

    @TempDir
    Path dir;

    @Test
    void aVoterWhoseControllerListenerIsTakenIsRefusedNamingItsNodeId() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            QuorumConfig config = new QuorumConfig(Set.of("broker", "controller"), 2, "test-cluster",
                    Map.of(2, InetSocketAddress.createUnresolved("127.0.0.1", taken.getLocalPort())),
                    dir.resolve("node-2"), Duration.ofMillis(300), Duration.ofMillis(600), 0, Map.of());

            assertThatThrownBy(() -> MetadataQuorumNode.start(config))
                    .isInstanceOf(ClusterMembershipException.class)
                    .hasMessageContaining("node 2: its controller listener 127.0.0.1:" + taken.getLocalPort())
                    .hasMessageContaining("is already in use by another process: is node 2 already running?");
            assertThat(dir.resolve("node-2")).satisfiesAnyOf(
                    d -> assertThat(Files.exists(d)).isFalse(),
                    d -> assertThat(d).isEmptyDirectory());
        }
    }

    @Test
    void aFreeControllerListenerPasses() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        QuorumConfig config = new QuorumConfig(Set.of("broker", "controller"), 1, "test-cluster",
                Map.of(1, InetSocketAddress.createUnresolved("127.0.0.1", port)), dir.resolve("node-1"),
                Duration.ofMillis(300), Duration.ofMillis(600), 0, Map.of());
        ControllerAddressCheck.requireFree(config);
    }
}
