package io.brook.cluster.raft;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.junit.jupiter.api.Test;

/** The Ratis properties a node's configuration gives its server. */
class MetadataQuorumPropertiesTest {

    private static QuorumConfig config(Map<Integer, InetSocketAddress> voters, Map<String, String> ratis) {
        return new QuorumConfig(Set.of("broker", "controller"), 1, "properties-cluster", voters, Path.of("unused"),
                Duration.ofMillis(1000), Duration.ofMillis(2000), 0, ratis);
    }

    private static InetSocketAddress address(int port) {
        return InetSocketAddress.createUnresolved("127.0.0.1", port);
    }

    @Test
    void theOnlyVoterStandsForItsFirstElectionAtOnce() {
        RaftProperties p = MetadataQuorumNode.properties(config(Map.of(1, address(9093)), Map.of()));

        assertThat(RaftServerConfigKeys.Rpc.firstElectionTimeoutMin(p).toLong(TimeUnit.MILLISECONDS)).isEqualTo(10);
        assertThat(RaftServerConfigKeys.Rpc.firstElectionTimeoutMax(p).toLong(TimeUnit.MILLISECONDS)).isEqualTo(20);
        assertThat(RaftServerConfigKeys.Rpc.timeoutMin(p).toLong(TimeUnit.MILLISECONDS)).isEqualTo(1000);
    }

    @Test
    void oneOfSeveralVotersWaitsTheElectionTimeOutFirst() {
        RaftProperties p = MetadataQuorumNode.properties(
                config(Map.of(1, address(9093), 2, address(9094), 3, address(9095)), Map.of()));

        // Ratis then uses the election time-outs for the first election as for every other
        assertThat(RaftServerConfigKeys.Rpc.firstElectionTimeoutMin(p).toLong(TimeUnit.MILLISECONDS)).isEqualTo(1000);
        assertThat(RaftServerConfigKeys.Rpc.firstElectionTimeoutMax(p).toLong(TimeUnit.MILLISECONDS)).isEqualTo(2000);
    }

    @Test
    void ratisPropertiesOfTheConfigurationWin() {
        RaftProperties p = MetadataQuorumNode.properties(config(Map.of(1, address(9093)),
                Map.of("raft.server.rpc.first-election.timeout.min", "700ms")));

        assertThat(RaftServerConfigKeys.Rpc.firstElectionTimeoutMin(p).toLong(TimeUnit.MILLISECONDS)).isEqualTo(700);
    }
}
