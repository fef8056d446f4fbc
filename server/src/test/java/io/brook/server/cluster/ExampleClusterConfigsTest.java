package io.brook.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.cluster.raft.QuorumConfig;
import io.brook.server.config.BrokerConfig;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** The three-node example of docs/examples/cluster/ parses: every key known, one client listener each, one quorum. */
class ExampleClusterConfigsTest {

    private static Map<String, String> load(int node) throws IOException {
        Path file = Path.of("..", "docs", "examples", "cluster", "node" + node + ".properties");
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file)) {
            p.load(r);
        }
        Map<String, String> out = new HashMap<>();
        p.stringPropertyNames().forEach(k -> out.put(k, p.getProperty(k)));
        return out;
    }

    @Test
    void theThreeNodesFormOneCluster() throws IOException {
        for (int node = 1; node <= 3; node++) {
            Map<String, String> props = load(node);
            BrokerConfig config = BrokerConfig.parse(props);
            assertThat(config.unknownKeys()).isEmpty();
            assertThat(config.clustered()).isTrue();
            assertThat(config.nodeId()).isEqualTo(node);
            assertThat(config.listeners().bound()).extracting(l -> l.name() + ":" + l.port())
                    .containsExactly("PLAINTEXT:" + (9090 + 2 * node));
            QuorumConfig q = QuorumConfig.fromProperties(props);
            assertThat(q.voters().keySet()).containsExactly(1, 2, 3);
            assertThat(q.address().getPort()).isEqualTo(9091 + 2 * node);
            assertThat(q.clusterId()).isEqualTo("brook-example-cluster");
        }
    }

    @Test
    void theFourthNodeIsABrokerThatFollowsTheLog() throws IOException {
        Map<String, String> props = load(4);
        BrokerConfig config = BrokerConfig.parse(props);
        assertThat(config.unknownKeys()).isEmpty();
        assertThat(config.listeners().bound()).extracting(l -> l.name() + ":" + l.port()).containsExactly("PLAINTEXT:9098");
        QuorumConfig q = QuorumConfig.fromProperties(props);
        assertThat(q.configuredVoter()).isFalse();
        assertThat(q.voters()).isEmpty();
        assertThat(q.bootstrapServers()).hasSize(3);
        assertThat(q.address().getPort()).isEqualTo(9099);
    }
}
