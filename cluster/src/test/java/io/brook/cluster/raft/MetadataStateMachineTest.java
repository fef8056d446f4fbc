package io.brook.cluster.raft;

import io.brook.testkit.FreePorts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.cluster.metadata.Endpoint;
import io.brook.cluster.metadata.MetadataImage;
import io.brook.cluster.metadata.MetadataRecord;
import io.brook.cluster.metadata.MetadataRecord.Config;
import io.brook.cluster.metadata.MetadataRecord.Partition;
import io.brook.cluster.metadata.MetadataRecord.RegisterBroker;
import io.brook.cluster.metadata.MetadataRecord.Topic;
import io.brook.cluster.metadata.MetadataRecord.UnfenceBroker;
import io.brook.testkit.Await;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The state machine inside a one-voter Ratis group: apply, snapshot, restore. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MetadataStateMachineTest {

    private static final UUID TOPIC = new UUID(4, 2);

    @TempDir
    Path dir;

    private QuorumConfig config() {
        int port = FreePorts.next();
        return new QuorumConfig(Set.of("controller"), 1, "cluster-a",
                Map.of(1, InetSocketAddress.createUnresolved("127.0.0.1", port)), dir.resolve("meta"),
                Duration.ofMillis(100), Duration.ofMillis(200), 0, Map.of());
    }

    private static MetadataQuorumNode leader(QuorumConfig config) throws Exception {
        MetadataQuorumNode node = MetadataQuorumNode.start(config);
        Await.until("node 1 leads", node::isLeader);
        return node;
    }

    private static List<MetadataRecord> records(MetadataQuorumNode node) {
        return node.stateMachine().read(MetadataImage::toRecords);
    }

    @Test
    void appliesCommittedBatchesAndReportsRejectedRecords() throws Exception {
        try (MetadataQuorumNode node = leader(config())) {
            AppendResult first = node.append(List.of(
                    new RegisterBroker(1, new UUID(0, 1), 1, List.of(new Endpoint("PLAINTEXT", "localhost", 9092)), null),
                    new UnfenceBroker(1, 1))).get(10, TimeUnit.SECONDS);
            AppendResult second = node.append(List.of(
                    new Topic("orders", TOPIC),
                    new Partition(TOPIC, 0, List.of(1), List.of(1), 1, 0, 0),
                    new Partition(TOPIC, 0, List.of(1), List.of(1), 1, 0, 0))).get(10, TimeUnit.SECONDS);

            assertThat(first.allApplied()).isTrue();
            assertThat(second.applied()).containsExactly(true, true, false);
            assertThat(second.index()).isGreaterThan(first.index());
            assertThat(node.stateMachine().rejectedRecords()).isEqualTo(1);
            assertThat(node.stateMachine().lastAppliedIndex()).isGreaterThanOrEqualTo(second.index());
            int partitions = node.stateMachine().read(image -> image.topics().get(TOPIC).partitions().size());
            assertThat(partitions).isEqualTo(1);
        }
    }

    @Test
    void restartsFromItsSnapshotAndReplaysTheLogAfterIt() throws Exception {
        QuorumConfig config = config();
        List<MetadataRecord> before;
        long snapshotIndex;
        try (MetadataQuorumNode node = leader(config)) {
            node.append(List.of(new Topic("orders", TOPIC), new Partition(TOPIC, 0, List.of(1), List.of(1), 1, 0, 0)))
                    .get(10, TimeUnit.SECONDS);
            snapshotIndex = node.takeSnapshot();
            node.append(List.of(new Config(MetadataRecord.RESOURCE_TOPIC, "orders", "retention.ms", "5")))
                    .get(10, TimeUnit.SECONDS);
            before = records(node);
        }
        assertThat(snapshotIndex).isPositive();
        try (var files = Files.walk(config.metadataDir())) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .anyMatch(name -> name.matches("snapshot\\.\\d+_" + snapshotIndex));
        }

        try (MetadataQuorumNode node = MetadataQuorumNode.start(config)) {
            Await.until("the log after the snapshot is replayed", () -> records(node).equals(before));
            assertThat(node.stateMachine().loadedSnapshotIndex()).isEqualTo(snapshotIndex);
            assertThat(before).contains(new Config(MetadataRecord.RESOURCE_TOPIC, "orders", "retention.ms", "5"));
        }
    }

    @Test
    void refusesToStartInADirectoryOfAnotherCluster() throws Exception {
        QuorumConfig config = config();
        try (MetadataQuorumNode node = MetadataQuorumNode.start(config)) {
            assertThat(node.nodeId()).isEqualTo(1);
        }
        QuorumConfig other = new QuorumConfig(config.processRoles(), 1, "cluster-b", config.voters(),
                config.metadataDir(), config.electionTimeoutMin(), config.electionTimeoutMax(), config.snapshotThreshold(),
                Map.of());

        assertThatThrownBy(() -> MetadataQuorumNode.start(other))
                .isInstanceOf(ClusterMembershipException.class)
                .hasMessageContaining("belongs to cluster cluster-a, not to the configured cluster cluster-b");
    }
}
