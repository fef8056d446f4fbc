package io.brook.cluster.member;

import static io.brook.cluster.member.ClusterMemberTestNodes.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.cluster.controller.ControllerError;
import io.brook.cluster.controller.ControllerException;
import io.brook.cluster.controller.ProducerIdBlock;
import io.brook.cluster.metadata.BrokerInfo;
import io.brook.cluster.metadata.ConfigResource;
import io.brook.cluster.metadata.MetadataRecord;
import io.brook.cluster.metadata.MetadataImage;
import io.brook.testkit.Await;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Three {@link RatisClusterMember}s in this JVM: registration, decisions through any node, failover, fencing. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RatisClusterMemberTest {

    @TempDir
    Path dir;

    private ClusterMemberTestNodes nodes;

    @BeforeEach
    void setUp() {
        nodes = new ClusterMemberTestNodes(dir);
    }

    @AfterEach
    void tearDown() throws Exception {
        nodes.close();
    }

    private void startAllAndAwaitUnfenced() throws Exception {
        nodes.startAll();
        for (ClusterMember m : nodes.members.values()) {
            m.unfenced().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        }
    }

    private static boolean unfenced(MetadataImage image, int id) {
        BrokerInfo b = image.brokers().get(id);
        return b != null && !b.fenced();
    }

    private ClusterMember aFollower(ClusterMember controller) {
        return nodes.members.values().stream().filter(m -> m != controller).findFirst().orElseThrow();
    }

    @Test
    void threeNodesRegisterAndAreUnfenced() throws Exception {
        startAllAndAwaitUnfenced();

        nodes.awaitEverywhere("three unfenced brokers",
                image -> unfenced(image, 1) && unfenced(image, 2) && unfenced(image, 3));
        for (ClusterMember m : nodes.members.values()) {
            long epoch = m.brokerEpoch();
            assertThat(epoch).isPositive();
            // the member's own image already shows it unfenced with its epoch when unfenced() completes
            assertThat(m.<Long>read(image -> image.brokers().get(m.nodeId()).epoch())).isEqualTo(epoch);
        }
        ClusterMember controller = nodes.awaitController();
        QuorumStatus status = controller.quorumStatus();
        assertThat(status.leaderId()).isEqualTo(controller.nodeId());
        assertThat(status.leaderEpoch()).isPositive();
        assertThat(status.highWatermark()).isPositive();
        assertThat(status.voters()).extracting(QuorumStatus.Replica::nodeId).containsExactly(1, 2, 3);
        Await.until("the leader knows every follower's match index", WAIT, () -> controller.quorumStatus().voters()
                .stream().allMatch(r -> r.logEndOffset() > 0 && r.lastFetchTimestamp() > 0));
        QuorumStatus onFollower = aFollower(controller).quorumStatus();
        assertThat(onFollower.leaderId()).isEqualTo(controller.nodeId());
        assertThat(onFollower.voters()).filteredOn(r -> r.nodeId() == controller.nodeId())
                .allMatch(r -> r.logEndOffset() == -1 && r.lastFetchTimestamp() == -1);
    }

    @Test
    void decisionsAskedOnAFollowerAreVisibleThereWhenTheyCompleteAndReachAllThree() throws Exception {
        startAllAndAwaitUnfenced();
        ClusterMember follower = aFollower(nodes.awaitController());
        AtomicLong changes = new AtomicLong();
        Set<UUID> seenByListener = ConcurrentHashMap.newKeySet();
        follower.onChange(() -> {
            changes.incrementAndGet();
            // listeners run after the image changed: the new topic is readable from inside one
            UUID seen = follower.<UUID>read(image -> image.topicId("orders"));
            if (seen != null) {
                seenByListener.add(seen);
            }
        });

        UUID id = follower.createTopic("orders", 3, 3, Map.of("retention.ms", "1000")).get(30, TimeUnit.SECONDS);
        // read-your-writes: the decision is applied on the asking node when its future completes
        assertThat(follower.<UUID>read(image -> image.topicId("orders"))).isEqualTo(id);
        assertThat(follower.<java.util.List<Integer>>read(image -> image.topics().get(id).partitions().get(0).replicas())).hasSize(3);
        assertThat(changes.get()).isPositive();
        Await.until("the change listener saw the topic", WAIT, () -> seenByListener.contains(id));
        nodes.awaitEverywhere("topic orders", image -> id.equals(image.topicId("orders")));

        follower.createPartitions("orders", 5).get(30, TimeUnit.SECONDS);
        assertThat(follower.<Integer>read(image -> image.topics().get(id).partitions().size())).isEqualTo(5);
        follower.alterTopicConfig("orders", "retention.ms", "2000").get(30, TimeUnit.SECONDS);
        assertThat(follower.<String>read(image -> image.configs(new ConfigResource(MetadataRecord.RESOURCE_TOPIC, "orders"))
                .get("retention.ms"))).isEqualTo("2000");
        ProducerIdBlock a = follower.allocateProducerIds().get(30, TimeUnit.SECONDS);
        ProducerIdBlock b = nodes.members.get(1).allocateProducerIds().get(30, TimeUnit.SECONDS);
        assertThat(a.brokerId()).isEqualTo(follower.nodeId());
        assertThat(b.firstId()).isNotEqualTo(a.firstId());
        follower.deleteTopic("orders").get(30, TimeUnit.SECONDS);
        assertThat(follower.<UUID>read(image -> image.topicId("orders"))).isNull();

        assertThatThrownBy(() -> follower.createTopic("orders", 1, 4, Map.of()).get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).cause().isInstanceOf(ControllerException.class)
                .satisfies(e -> assertThat(((ControllerException) e).error())
                        .isEqualTo(ControllerError.INVALID_REPLICATION_FACTOR));
        assertThatThrownBy(() -> follower.deleteTopic("no-such-topic").get(30, TimeUnit.SECONDS))
                .cause().isInstanceOf(ControllerException.class)
                .hasMessageContaining("no topic 'no-such-topic'");
    }

    @Test
    void whenTheControllerStopsAnotherNodeTakesOverAndDecides() throws Exception {
        startAllAndAwaitUnfenced();
        ClusterMember first = nodes.awaitController();
        first.createTopic("before", 2, 2, Map.of()).get(30, TimeUnit.SECONDS);
        // the surviving brokers must never be fenced: the new controller has no heartbeats from
        // before and gives every broker a session time-out of grace
        Set<Integer> everFenced = ConcurrentHashMap.newKeySet();
        for (ClusterMember m : nodes.members.values()) {
            if (m != first) {
                m.onChange(() -> everFenced.addAll(m.<List<Integer>>read(image -> image.brokers().values().stream()
                        .filter(BrokerInfo::fenced).map(BrokerInfo::id).toList())));
            }
        }

        nodes.stop(first.nodeId());
        ClusterMember second = nodes.awaitController();
        assertThat(second.nodeId()).isNotEqualTo(first.nodeId());
        ClusterMember asker = aFollower(second);
        UUID after = asker.createTopic("after", 2, 1, Map.of()).get(30, TimeUnit.SECONDS);

        assertThat(asker.<UUID>read(image -> image.topicId("after"))).isEqualTo(after);
        nodes.awaitEverywhere("both topics", image -> image.topicId("before") != null && image.topicId("after") != null);
        // the stopped broker is fenced by the new controller after its session time-out
        nodes.awaitEverywhere("the stopped broker fenced", image -> image.brokers().get(first.nodeId()).fenced());
        assertThat(everFenced).containsOnly(first.nodeId());
    }

    @Test
    void whenLeadershipMovesTheNewControllerAnswersAtOnce() throws Exception {
        startAllAndAwaitUnfenced();
        ClusterMember first = nodes.awaitController();
        ClusterMember next = aFollower(first);
        ((RatisClusterMember) first).quorumNode().transferLeadership(next.nodeId(), 10_000);
        Await.until("node " + next.nodeId() + " is the controller everywhere", WAIT,
                () -> nodes.members.values().stream().allMatch(m -> m.controllerId() == next.nodeId()));

        // a heartbeat of an unfenced broker appends nothing: its answer names the new leader's
        // applied index, which may be the leader's first entry of its term (not a record)
        for (ClusterMember m : nodes.members.values()) {
            ((RatisClusterMember) m).channel().ask(new ControllerRequest.Heartbeat(m.nodeId(), m.brokerEpoch()),
                    Object.class).get(10, TimeUnit.SECONDS);
        }
        UUID id = first.createTopic("moved", 3, 3, Map.of()).get(30, TimeUnit.SECONDS);
        assertThat(first.<UUID>read(image -> image.topicId("moved"))).isEqualTo(id);
        nodes.awaitEverywhere("three unfenced brokers", image -> unfenced(image, 1) && unfenced(image, 2)
                && unfenced(image, 3));
    }

    @Test
    void aBrokerThatStopsHeartbeatingIsFencedAndUnfencedWhenItComesBack() throws Exception {
        startAllAndAwaitUnfenced();
        ClusterMember controller = nodes.awaitController();
        int id = aFollower(controller).nodeId();
        long oldEpoch = nodes.members.get(id).brokerEpoch();
        controller.createTopic("led", 6, 1, Map.of()).get(30, TimeUnit.SECONDS);

        long stoppedAt = System.nanoTime();
        // as a crash would: no controlled shutdown (ControlledShutdownTest has that)
        ((RatisClusterMember) nodes.members.remove(id)).closeWithoutShutdown();
        nodes.awaitEverywhere("broker " + id + " fenced", image -> image.brokers().get(id).fenced());
        long fencedAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stoppedAt);
        // not before its session time-out: it was last heard at most a heartbeat interval (and the
        // heartbeat's round trip) before it stopped
        assertThat(fencedAfterMs).isGreaterThanOrEqualTo(
                ClusterMemberTestNodes.SESSION_MS - 2 * ClusterMemberTestNodes.HEARTBEAT_MS);
        // no partition is led by a fenced broker
        nodes.awaitEverywhere("no partition led by " + id, image -> image.topics().values().stream()
                .flatMap(t -> t.partitions().values().stream()).noneMatch(p -> p.leader() == id));

        ClusterMember back = nodes.start(id);
        back.unfenced().get(30, TimeUnit.SECONDS);
        assertThat(back.brokerEpoch()).isGreaterThan(oldEpoch);
        nodes.awaitEverywhere("broker " + id + " unfenced again", image -> unfenced(image, id));
    }
}
