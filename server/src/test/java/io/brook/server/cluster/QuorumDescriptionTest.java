package io.brook.server.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.cluster.controller.ProducerIdBlock;
import io.brook.cluster.member.ClusterMember;
import io.brook.cluster.member.QuorumStatus;
import io.brook.cluster.member.QuorumStatus.Replica;
import io.brook.cluster.metadata.MetadataImage;
import io.brook.server.node.MetadataQuorum;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** This node's view of the quorum for DescribeQuorum, from a fake member's status and the configured voters. */
class QuorumDescriptionTest {

    private final FakeMember member = new FakeMember();

    @Test
    void describesTheMembersStatusWithEachVotersControllerListener() {
        Map<Integer, InetSocketAddress> voters = Map.of(
                3, InetSocketAddress.createUnresolved("127.0.0.1", 9097),
                1, InetSocketAddress.createUnresolved("127.0.0.1", 9093),
                2, InetSocketAddress.createUnresolved("localhost", 9095));
        QuorumDescription d = new QuorumDescription(member, "CONTROLLER", voters);
        member.status = new QuorumStatus(2, 7, 41, List.of(new Replica(1, 40, 100, -1), new Replica(2, 41, 200, 200),
                new Replica(3, -1, -1, -1)), List.of(new Replica(4, 41, 150, -1)));

        MetadataQuorum q = d.describe();

        assertThat(q.leaderId()).isEqualTo(2);
        assertThat(q.leaderEpoch()).isEqualTo(7);
        assertThat(q.highWatermark()).isEqualTo(41);
        assertThat(q.voters()).containsExactly(new MetadataQuorum.Replica(1, 40, 100, -1),
                new MetadataQuorum.Replica(2, 41, 200, 200), new MetadataQuorum.Replica(3, -1, -1, -1));
        assertThat(q.observers()).containsExactly(new MetadataQuorum.Replica(4, 41, 150, -1));
        assertThat(q.endpoints()).containsExactly(new MetadataQuorum.VoterEndpoint(1, "CONTROLLER", "127.0.0.1", 9093),
                new MetadataQuorum.VoterEndpoint(2, "CONTROLLER", "localhost", 9095),
                new MetadataQuorum.VoterEndpoint(3, "CONTROLLER", "127.0.0.1", 9097));

        // read afresh on every request: a new leader shows at once
        member.status = new QuorumStatus(3, 8, 45, List.of(), List.of());
        assertThat(d.describe().leaderId()).isEqualTo(3);
        assertThat(d.describe().leaderEpoch()).isEqualTo(8);
    }

    @Test
    void noLeaderKnownIsMinusOne() {
        member.status = new QuorumStatus(-1, -1, -1, List.of(), List.of());
        assertThat(new QuorumDescription(member, "CONTROLLER", Map.of()).describe().leaderId()).isEqualTo(-1);
    }

    @Test
    void describeFromLeaderAnswersWithTheLeadersViewAndFallsBackToThisNodesOwn() {
        QuorumDescription d = new QuorumDescription(member, "CONTROLLER", Map.of());
        member.status = new QuorumStatus(1, 4, 20, List.of(new Replica(1, -1, -1, -1), new Replica(2, 20, -1, -1)),
                List.of());
        member.leaderView = new QuorumStatus(1, 4, 21, List.of(new Replica(1, 21, 500, 500),
                new Replica(2, 20, 480, -1)), List.of());

        assertThat(d.describeFromLeader().join().voters()).containsExactly(new MetadataQuorum.Replica(1, 21, 500, 500),
                new MetadataQuorum.Replica(2, 20, 480, -1));

        member.leaderView = null;
        assertThat(d.describeFromLeader().join().highWatermark()).isEqualTo(20);
    }

    /** A member that reports a quorum status and decides nothing. */
    private static final class FakeMember implements ClusterMember {

        volatile QuorumStatus status;
        /** What the leader answers; null: the leader does not answer. */
        volatile QuorumStatus leaderView;

        @Override
        public QuorumStatus quorumStatus() {
            return status;
        }

        @Override
        public int nodeId() {
            return 1;
        }

        @Override
        public String clusterId() {
            return "test-cluster";
        }

        @Override
        public <T> T read(Function<MetadataImage, T> reader) {
            return reader.apply(new MetadataImage());
        }

        @Override
        public long lastAppliedIndex() {
            return -1;
        }

        @Override
        public void onChange(Runnable listener) {
            throw new UnsupportedOperationException();
        }

        @Override
        public int controllerId() {
            return status.leaderId();
        }

        @Override
        public long brokerEpoch() {
            return -1;
        }

        @Override
        public CompletableFuture<Void> unfenced() {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<UUID> createTopic(String name, int partitions, int replicationFactor,
                                                   Map<String, String> configs) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<UUID> createTopic(String name, List<List<Integer>> assignment,
                                                   Map<String, String> configs) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Void> createPartitions(String name, int totalCount) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Void> createPartitions(String name, int totalCount, List<List<Integer>> assignment) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Void> deleteTopic(String name) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Void> alterTopicConfig(String topic, String key, String value) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Void> shutDownBroker() {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<QuorumStatus> leaderQuorumStatus() {
            return leaderView != null ? CompletableFuture.completedFuture(leaderView)
                    : CompletableFuture.failedFuture(new IllegalStateException("no leader"));
        }

        @Override
        public CompletableFuture<Void> replaceTopicConfigs(String topic, Map<String, String> configs) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<ProducerIdBlock> allocateProducerIds() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void close() {
        }
    }
}
