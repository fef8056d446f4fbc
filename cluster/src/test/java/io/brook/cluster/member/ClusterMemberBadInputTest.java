package io.brook.cluster.member;

import static io.brook.cluster.member.ClusterMemberTestNodes.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.cluster.controller.ControllerError;
import io.brook.cluster.controller.ControllerException;
import io.brook.cluster.metadata.BrokerInfo;
import io.brook.cluster.metadata.Endpoint;
import io.brook.cluster.raft.ClusterMembershipException;
import io.brook.testkit.FreePorts;
import io.brook.cluster.raft.QuorumConfig;
import io.brook.testkit.Await;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Misconfigured nodes and misbehaving brokers against three running members: each refused clearly, nothing lost. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ClusterMemberBadInputTest {

    @TempDir
    Path dir;

    private ClusterMemberTestNodes nodes;

    @BeforeEach
    void startThree() throws Exception {
        nodes = new ClusterMemberTestNodes(dir);
        nodes.startAll();
        for (ClusterMember m : nodes.members.values()) {
            m.unfenced().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        }
        nodes.members.get(1).createTopic("kept", 3, 2, Map.of()).get(30, TimeUnit.SECONDS);
    }

    @AfterEach
    void tearDown() throws Exception {
        nodes.close();
    }

    private void awaitNothingLost() {
        nodes.awaitEverywhere("three unfenced brokers and topic kept", image -> image.topicId("kept") != null
                && image.brokers().values().stream().filter(b -> !b.fenced()).count() == 3);
    }

    private RatisClusterMember member(int id) {
        return (RatisClusterMember) nodes.members.get(id);
    }

    private static ControllerError errorOf(Throwable e) {
        Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
        assertThat(cause).isInstanceOf(ControllerException.class);
        return ((ControllerException) cause).error();
    }

    @Test
    void aNodeWithAnotherClusterIdIsRefusedAtStart() {
        Map<Integer, InetSocketAddress> withFour = new TreeMap<>(nodes.voters);
        withFour.put(4, InetSocketAddress.createUnresolved("127.0.0.1", FreePorts.next()));

        assertThatThrownBy(() -> RatisClusterMember.start(nodes.config(4, "another-cluster", withFour),
                ClusterMemberTestNodes.registration(4), Clock.systemUTC()))
                .isInstanceOf(ClusterMembershipException.class)
                .hasMessageContaining("node 4 is configured for cluster another-cluster")
                .hasMessageContaining("check cluster.id and controller.quorum.voters");
        awaitNothingLost();
    }

    @Test
    void aNodeWhoseVotersDisagreeWithTheGroupIsRefusedAtStart() throws Exception {
        nodes.stop(3);
        Map<Integer, InetSocketAddress> wrong = new TreeMap<>(nodes.voters);
        wrong.put(2, InetSocketAddress.createUnresolved("127.0.0.1", FreePorts.next()));

        assertThatThrownBy(() -> RatisClusterMember.start(nodes.config(3, nodes.cluster, wrong),
                ClusterMemberTestNodes.registration(3), Clock.systemUTC()))
                .isInstanceOf(ClusterMembershipException.class)
                .hasMessageContaining("node 3 is configured with controller.quorum.voters")
                .hasMessageContaining("every node must name the same voters");

        // with the right voters it comes back and nothing was lost
        nodes.start(3).unfenced().get(30, TimeUnit.SECONDS);
        awaitNothingLost();
    }

    @Test
    void aSecondVoterWithTheSameNodeIdIsRefusedAtStart() {
        // another process (its own data directory) configured as node 2, exactly as node 2 is
        QuorumConfig twin = new QuorumConfig(Set.of("broker", "controller"), 2, nodes.cluster,
                nodes.voters, dir.resolve("twin-of-2"), Duration.ofMillis(300), Duration.ofMillis(600), 0, Map.of());

        assertThatThrownBy(() -> RatisClusterMember.start(twin, ClusterMemberTestNodes.registration(2),
                Clock.systemUTC()))
                .isInstanceOf(ClusterMembershipException.class)
                .hasMessageContaining("another process runs with node.id 2");
        awaitNothingLost();
    }

    @Test
    void aNodeWhoseVoterPortIsTakenIsRefusedWithAnExceptionNotAnExit() throws Exception {
        nodes.stop(3);
        try (ServerSocket squatter = new ServerSocket()) {
            squatter.bind(new InetSocketAddress("127.0.0.1", nodes.voters.get(3).getPort()));

            // Ratis would end the JVM on the failed bind; the node refuses to start instead
            assertThatThrownBy(() -> nodes.start(3))
                    .isInstanceOf(ClusterMembershipException.class)
                    .hasMessageContaining("is already in use by another process");
        }
        nodes.start(3).unfenced().get(30, TimeUnit.SECONDS);
        awaitNothingLost();
    }

    @Test
    void aSecondProcessWithTheSameNodeIdIsRefusedAsADuplicate() throws Exception {
        long epoch = nodes.members.get(2).brokerEpoch();
        ControllerRequest.Register impostor = new ControllerRequest.Register(2, UUID.randomUUID(),
                List.of(new Endpoint("PLAINTEXT", "127.0.0.1", 29092)), null);

        assertThatThrownBy(() -> member(1).channel().ask(impostor, Long.class).get(30, TimeUnit.SECONDS))
                .satisfies(e -> assertThat(errorOf(e)).isEqualTo(ControllerError.DUPLICATE_BROKER_REGISTRATION))
                .hasMessageContaining("broker id 2 is in use by another process");
        BrokerInfo b = nodes.members.get(2).read(image -> image.brokers().get(2));
        assertThat(b.epoch()).isEqualTo(epoch);
        assertThat(b.fenced()).isFalse();
        awaitNothingLost();
    }

    @Test
    void aBrokerWithAStaleEpochIsToldSoAndRegistersAgain() throws Exception {
        ClusterMember two = nodes.members.get(2);
        long oldEpoch = two.brokerEpoch();
        UUID incarnation = two.read(image -> image.brokers().get(2).incarnationId());

        // the same process registering again (as after a restart it did not notice) moves its epoch on
        long newer = member(1).channel().ask(new ControllerRequest.Register(2, incarnation,
                List.of(new Endpoint("PLAINTEXT", "127.0.0.1", 19002)), null), Long.class).get(30, TimeUnit.SECONDS);
        assertThat(newer).isGreaterThan(oldEpoch);
        assertThatThrownBy(() -> member(1).channel().ask(new ControllerRequest.Heartbeat(2, oldEpoch), Object.class)
                .get(30, TimeUnit.SECONDS))
                .satisfies(e -> assertThat(errorOf(e)).isEqualTo(ControllerError.STALE_BROKER_EPOCH));

        // broker 2's own heartbeat with its old epoch is refused the same way, and it registers again
        Await.until("broker 2 registered again", WAIT, () -> two.brokerEpoch() > newer);
        nodes.awaitEverywhere("broker 2 unfenced with its new epoch", image -> {
            BrokerInfo b = image.brokers().get(2);
            return !b.fenced() && b.epoch() == two.brokerEpoch();
        });
        awaitNothingLost();
    }

    @Test
    void aRequestOfAnUnknownTypeIsRefusedAsInvalid() throws Exception {
        byte[] unknown = {'B', 'C', 1, 99};
        ByteBuffer answer = member(2).quorumNode().query(unknown).get(30, TimeUnit.SECONDS);
        ControllerReply reply = ControllerReply.decode(answer);

        assertThat(reply.outcome()).isEqualTo(ControllerReply.Outcome.REFUSED);
        assertThat(reply.error()).isEqualTo(ControllerError.INVALID_REQUEST);
        assertThat(reply.message()).contains("unknown controller request type 99");
        awaitNothingLost();
    }
}
