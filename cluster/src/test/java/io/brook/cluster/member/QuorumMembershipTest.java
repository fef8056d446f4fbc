package io.brook.cluster.member;

import static io.brook.cluster.member.ClusterMemberTestNodes.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.cluster.controller.ControllerError;
import io.brook.cluster.controller.ControllerException;
import io.brook.cluster.metadata.BrokerInfo;
import io.brook.cluster.metadata.MetadataImage;
import io.brook.testkit.Await;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nodes that are not voters (Ratis listeners) and changes of the voter set: a broker-only node
 * follows the log, registers and leads partitions but never votes; RemoveRaftVoter and
 * AddRaftVoter semantics over Ratis' setConfiguration.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class QuorumMembershipTest {

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

    private static boolean unfenced(MetadataImage image, int id) {
        BrokerInfo b = image.brokers().get(id);
        return b != null && !b.fenced();
    }

    private static Throwable cause(ExecutionException e) {
        return e.getCause();
    }

    @Test
    void aBrokerOnlyNodeFollowsTheLogRegistersAndLeadsPartitionsButNeverVotes() throws Exception {
        nodes.startAll();
        ClusterMember four = nodes.startBrokerOnly(4, true);
        four.unfenced().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        nodes.awaitEverywhere("four unfenced brokers", image -> unfenced(image, 1) && unfenced(image, 2)
                && unfenced(image, 3) && unfenced(image, 4));

        // placement spreads over the four brokers: node 4 leads some partitions and its image has them
        UUID id = four.createTopic("spread", 8, 1, Map.of()).get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(four.<Long>read(image -> image.topics().get(id).partitions().values().stream()
                .filter(p -> p.leader() == 4).count())).isPositive();

        ClusterMember controller = nodes.awaitController();
        Await.until("node 4 listed as an observer by the controller", WAIT, () ->
                controller.quorumStatus().observers().stream().anyMatch(r -> r.nodeId() == 4));
        QuorumStatus status = controller.quorumStatus();
        assertThat(status.voters()).extracting(QuorumStatus.Replica::nodeId).containsExactly(1, 2, 3);
        assertThat(four.voterAddresses()).containsOnlyKeys(1, 2, 3);
        assertThat(four.quorumStatus().observers()).extracting(QuorumStatus.Replica::nodeId).containsExactly(4);

        // it never becomes the leader: stop the controller, another voter takes over
        nodes.stop(controller.nodeId());
        Await.until("a new controller among the voters", WAIT, () -> {
            int c = four.controllerId();
            return c != -1 && c != controller.nodeId() && nodes.members.containsKey(c);
        });
        assertThat(four.controllerId()).isNotEqualTo(4);
        four.createTopic("after-failover", 1, 1, Map.of()).get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    @Test
    void aBrokerOnlyNodeRestartsAndCatchesUp() throws Exception {
        nodes.startAll();
        nodes.startBrokerOnly(4, false).unfenced().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        nodes.stop(4);
        nodes.members.get(1).createTopic("while-away", 2, 1, Map.of()).get(WAIT.toSeconds(), TimeUnit.SECONDS);

        ClusterMember four = nodes.startBrokerOnly(4, false);
        four.unfenced().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        Await.until("node 4's image has the topic created while it was away", WAIT,
                () -> four.read(image -> image.topicId("while-away") != null));
    }

    @Test
    void aVoterIsRemovedAndAListenerAdded() throws Exception {
        nodes.startAll();
        ClusterMember four = nodes.startBrokerOnly(4, true);
        four.unfenced().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        ClusterMember controller = nodes.awaitController();
        int removed = controller.nodeId() == 3 ? 2 : 3;

        // refusals: a voter twice, an unknown node
        ExecutionException dup = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> four.addVoter(1).get(WAIT.toSeconds(), TimeUnit.SECONDS));
        assertThat(((ControllerException) cause(dup)).error()).isEqualTo(ControllerError.DUPLICATE_VOTER);
        ExecutionException unknown = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> four.addVoter(9).get(WAIT.toSeconds(), TimeUnit.SECONDS));
        assertThat(((ControllerException) cause(unknown)).error()).isEqualTo(ControllerError.VOTER_NOT_FOUND);

        // a voter that leads partitions is refused until it leads none
        nodes.members.get(removed).createTopic("led", 6, 1, Map.of()).get(WAIT.toSeconds(), TimeUnit.SECONDS);
        Await.until("node " + removed + " leads a partition", WAIT, () -> controller.<Boolean>read(image ->
                image.topics().values().stream().flatMap(t -> t.partitions().values().stream())
                        .anyMatch(p -> p.leader() == removed)));
        assertThatThrownBy(() -> controller.removeVoter(removed).get(WAIT.toSeconds(), TimeUnit.SECONDS))
                .hasCauseInstanceOf(ControllerException.class).hasMessageContaining("still leads");
        controller.deleteTopic("led").get(WAIT.toSeconds(), TimeUnit.SECONDS);

        controller.removeVoter(removed).get(WAIT.toSeconds(), TimeUnit.SECONDS);
        Await.until("node " + removed + " is an observer", WAIT, () -> !controller.voterAddresses().containsKey(removed)
                && controller.quorumStatus().observers().stream().anyMatch(r -> r.nodeId() == removed));
        // the cluster goes on deciding, and the removed node still follows the log
        UUID after = four.createTopic("after-removal", 1, 1, Map.of()).get(WAIT.toSeconds(), TimeUnit.SECONDS);
        Await.until("the removed node applies the new topic", WAIT,
                () -> nodes.members.get(removed).read(image -> image.topics().containsKey(after)));

        four.addVoter(4).get(WAIT.toSeconds(), TimeUnit.SECONDS);
        Await.until("node 4 is a voter everywhere", WAIT, () -> nodes.members.values().stream()
                .allMatch(m -> m.voterAddresses().containsKey(4) && !m.voterAddresses().containsKey(removed)));
        UUID afterAdd = four.createTopic("after-add", 1, 1, Map.of()).get(WAIT.toSeconds(), TimeUnit.SECONDS);

        // the removed node restarts with its old static controller.quorum.voters: accepted, and it
        // comes back as what the group says it is, a listener
        nodes.stop(removed);
        ClusterMember back = nodes.start(removed);
        Await.until("the restarted node catches up", WAIT, () -> back.read(image -> image.topics().containsKey(afterAdd)));
        assertThat(back.voterAddresses()).containsKey(4).doesNotContainKey(removed);

        // node 4 votes at once, with no restart of its own: with the controller stopped, the two
        // voters left (node 4 and one other) elect a new controller, which takes node 4's vote
        int before = nodes.awaitController().nodeId();
        if (before != 4) {
            nodes.stop(before);
            Await.until("a controller elected by the two voters left", WAIT, () -> {
                int c = four.controllerId();
                return c != -1 && c != before;
            });
        }
        four.createTopic("after-election", 1, 1, Map.of()).get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    @Test
    void theLastVoterCannotBeRemoved() throws Exception {
        nodes.startAll();
        ClusterMember controller = nodes.awaitController();
        int[] others = nodes.members.keySet().stream().mapToInt(Integer::intValue)
                .filter(i -> i != controller.nodeId()).toArray();
        controller.removeVoter(others[0]).get(WAIT.toSeconds(), TimeUnit.SECONDS);
        controller.removeVoter(others[1]).get(WAIT.toSeconds(), TimeUnit.SECONDS);

        assertThatThrownBy(() -> controller.removeVoter(controller.nodeId()).get(WAIT.toSeconds(), TimeUnit.SECONDS))
                .hasCauseInstanceOf(ControllerException.class).hasMessageContaining("last voter");
    }
}
