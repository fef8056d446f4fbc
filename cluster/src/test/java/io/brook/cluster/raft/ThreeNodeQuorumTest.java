package io.brook.cluster.raft;

import io.brook.testkit.FreePorts;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.cluster.controller.Controller;
import io.brook.cluster.metadata.Endpoint;
import io.brook.cluster.metadata.MetadataImage;
import io.brook.cluster.metadata.MetadataRecord;
import io.brook.cluster.metadata.MetadataRecord.Config;
import io.brook.cluster.metadata.MetadataRecord.Topic;
import io.brook.testkit.Await;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Three voters of one metadata quorum in this JVM, on loopback ports, over Ratis' gRPC transport. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ThreeNodeQuorumTest {

    private static final String CLUSTER = "test-cluster";
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    private final Map<Integer, InetSocketAddress> voters = new HashMap<>();
    private final Map<Integer, MetadataQuorumNode> nodes = new HashMap<>();

    private QuorumConfig config(int id, String clusterId, Map<Integer, InetSocketAddress> voterSet) {
        // elections a little slower than Ratis' LAN default: two cores run three servers and the build
        return new QuorumConfig(Set.of("broker", "controller"), id, clusterId, voterSet, dir.resolve("node-" + id),
                Duration.ofMillis(300), Duration.ofMillis(600), 0, Map.of());
    }

    /** Settings of the next nodes started, on top of {@link #config}. */
    private UnaryOperator<QuorumConfig> tuning = UnaryOperator.identity();

    private void startAll() throws Exception {
        for (int id = 1; id <= 3; id++) {
            voters.put(id, InetSocketAddress.createUnresolved("127.0.0.1", FreePorts.next()));
        }
        for (int id = 1; id <= 3; id++) {
            start(id);
        }
    }

    private MetadataQuorumNode start(int id) throws Exception {
        MetadataQuorumNode node = MetadataQuorumNode.start(tuning.apply(config(id, CLUSTER, voters)));
        nodes.put(id, node);
        return node;
    }

    @AfterEach
    void closeAll() throws Exception {
        for (MetadataQuorumNode n : nodes.values()) {
            n.close();
        }
    }

    private MetadataQuorumNode awaitLeader() {
        Await.until("one leader that every running node knows", WAIT, () -> {
            long leaders = nodes.values().stream().filter(MetadataQuorumNode::isLeader).count();
            return leaders == 1 && nodes.values().stream().map(MetadataQuorumNode::leaderId).distinct().count() == 1
                    && nodes.values().iterator().next().leaderId().isPresent();
        });
        return nodes.values().stream().filter(MetadataQuorumNode::isLeader).findFirst().orElseThrow();
    }

    private static List<MetadataRecord> image(MetadataQuorumNode node) {
        return node.stateMachine().read(MetadataImage::toRecords);
    }

    private void awaitSameImageEverywhere(List<MetadataRecord> expected) {
        Await.until("every node applied " + expected.size() + " records", WAIT,
                () -> nodes.values().stream().allMatch(n -> image(n).equals(expected)));
    }

    @Test
    void aQuorumFormsAndReplicatesEveryBatchToAllThree() throws Exception {
        startAll();
        MetadataQuorumNode leader = awaitLeader();
        MetadataQuorumNode follower = nodes.values().stream().filter(n -> n != leader).findFirst().orElseThrow();

        List<AppendResult> results = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            // appends through a follower reach the leader by the client's redirect
            MetadataQuorumNode via = i % 2 == 0 ? leader : follower;
            results.add(via.append(List.of(new Topic("topic-" + i, new UUID(9, i)))).get(30, TimeUnit.SECONDS));
        }

        assertThat(results).allMatch(AppendResult::allApplied);
        assertThat(results).extracting(AppendResult::index).isSorted().doesNotHaveDuplicates();
        List<MetadataRecord> expected = image(leader);
        assertThat(expected).hasSize(20);
        awaitSameImageEverywhere(expected);
    }

    @Test
    void theVotesThatElectALeaderAndTheNamesOfTheLogWereMadeDurableBeforeTheyCounted() throws Exception {
        startAll();
        MetadataQuorumNode leader = awaitLeader();

        // a leader of three needs a vote besides its own: the voter that granted it forced its directory first
        long granted = nodes.values().stream().filter(n -> n != leader)
                .mapToLong(n -> n.stateMachine().grantedVotes()).sum();
        assertThat(granted).isPositive();
        // and the leader made its vote for itself durable before it led
        assertThat(leader.stateMachine().termsLed()).isPositive();

        // every node's forces of its log pass the same check (a new segment's name forced first)
        leader.append(List.of(new Topic("voted", new UUID(9, 9)))).get(30, TimeUnit.SECONDS);
        Await.until("every node forced its log through the check", WAIT, () -> nodes.values().stream()
                .allMatch(n -> n.stateMachine().logFlushes() > 0));
    }

    @Test
    void aNewLeaderIsElectedWhenTheLeaderDiesAndTheOldOneCatchesUpOnRestart() throws Exception {
        startAll();
        MetadataQuorumNode first = awaitLeader();
        Controller controller = new Controller(Clock.systemUTC(), Controller.DEFAULT_SESSION_TIMEOUT_MS, first, UUID::randomUUID);
        for (int id = 1; id <= 3; id++) {
            long epoch = controller.registerBroker(id, new UUID(0, id), List.of(new Endpoint("PLAINTEXT", "127.0.0.1", 9090 + id)),
                    null).get(30, TimeUnit.SECONDS);
            controller.heartbeat(id, epoch).get(30, TimeUnit.SECONDS);
        }
        controller.createTopic("before", 6, 1, Map.of()).get(30, TimeUnit.SECONDS);
        awaitSameImageEverywhere(image(first));
        long oldTerm = first.term();

        int deadId = first.nodeId();
        first.close();
        nodes.remove(deadId);
        MetadataQuorumNode second = awaitLeader();

        assertThat(second.nodeId()).isNotEqualTo(deadId);
        assertThat(second.term()).isGreaterThan(oldTerm);
        Controller next = new Controller(Clock.systemUTC(), Controller.DEFAULT_SESSION_TIMEOUT_MS, second, UUID::randomUUID);
        next.createTopic("after", 3, 1, Map.of()).get(30, TimeUnit.SECONDS);
        second.append(List.of(new Config(MetadataRecord.RESOURCE_TOPIC, "after", "retention.ms", "1"))).get(30, TimeUnit.SECONDS);
        awaitSameImageEverywhere(image(second));

        MetadataQuorumNode restarted = start(deadId);
        List<MetadataRecord> expected = image(second);
        Await.until("the restarted node catches up", WAIT, () -> image(restarted).equals(expected));
        assertThat(expected).contains(new Config(MetadataRecord.RESOURCE_TOPIC, "after", "retention.ms", "1"));
        assertThat(second.stateMachine().<Integer>read(img -> img.topics().size())).isEqualTo(2);
    }

    @Test
    void aNodeBehindThePurgedLogCatchesUpFromTheLeadersSnapshot() throws Exception {
        // snapshots every 10 entries, small log segments, and the log purged up to each snapshot
        tuning = c -> c.withSnapshotThreshold(10)
                .withRatisProperty("raft.server.log.segment.size.max", "2KB")
                .withRatisProperty("raft.server.log.purge.gap", "1")
                .withRatisProperty("raft.server.log.purge.upto.snapshot.index", "true");
        startAll();
        MetadataQuorumNode leader = awaitLeader();
        MetadataQuorumNode lagging = nodes.values().stream().filter(n -> n != leader).findFirst().orElseThrow();
        int laggingId = lagging.nodeId();
        long laggingApplied = lagging.stateMachine().lastAppliedIndex();
        lagging.close();
        nodes.remove(laggingId);

        for (int i = 0; i < 80; i++) {
            leader.append(List.of(new Topic("topic-" + i, new UUID(5, i)))).get(30, TimeUnit.SECONDS);
        }
        Await.until("the leader purged its log past what the stopped node has", WAIT,
                () -> leader.logStartIndex() > laggingApplied + 1);

        MetadataQuorumNode restarted = start(laggingId);
        List<MetadataRecord> expected = image(leader);
        Await.until("the restarted node catches up", WAIT, () -> image(restarted).equals(expected));
        assertThat(restarted.stateMachine().loadedSnapshotIndex()).isGreaterThan(laggingApplied);
        assertThat(expected).hasSize(80);
    }

    @Test
    void aNodeOfAnotherClusterIsRefusedWithAClearMessage() throws Exception {
        startAll();
        awaitLeader();
        Map<Integer, InetSocketAddress> withFour = new HashMap<>(voters);
        withFour.put(4, InetSocketAddress.createUnresolved("127.0.0.1", FreePorts.next()));

        assertThatThrownBy(() -> MetadataQuorumNode.start(config(4, "other-cluster", withFour)))
                .isInstanceOf(ClusterMembershipException.class)
                .hasMessageContaining("node 4 is configured for cluster other-cluster")
                .hasMessageContaining("serves another cluster")
                .hasMessageContaining("metadata group " + MetadataQuorumNode.groupId(CLUSTER).getUuid());
        assertThat(dir.resolve("node-4").resolve(QuorumIdentityFile.FILE_NAME)).doesNotExist();
    }
}
