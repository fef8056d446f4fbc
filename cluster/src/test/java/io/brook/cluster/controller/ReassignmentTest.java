package io.brook.cluster.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.cluster.metadata.Endpoint;
import io.brook.cluster.metadata.MetadataImage;
import io.brook.cluster.metadata.MetadataRecord;
import io.brook.cluster.metadata.PartitionInfo;
import io.brook.testkit.MutableClock;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Moving partitions between brokers and electing their leaders: the controller's decisions over a log that applies at once. */
class ReassignmentTest {

    private final MutableClock clock = new MutableClock(1_000_000);
    private final ImageLog log = new ImageLog();
    private final AtomicLong ids = new AtomicLong(1);
    private final Controller controller = new Controller(clock, Controller.DEFAULT_SESSION_TIMEOUT_MS, log,
            () -> new UUID(7, ids.getAndIncrement()));
    private final long[] epochs = new long[4];

    ReassignmentTest() {
        for (int id = 1; id <= 3; id++) {
            epochs[id] = controller.registerBroker(id, new UUID(1, id), List.of(new Endpoint("PLAINTEXT", "h", 9092)),
                    null).join();
            controller.heartbeat(id, epochs[id]).join();
        }
    }

    private PartitionInfo partition(String topic, int p) {
        return log.read(image -> image.topics().get(image.topicId(topic)).partitions().get(p));
    }

    /** A topic with one partition on the given replicas, the first leading. */
    private void topicOn(String name, List<Integer> replicas) {
        controller.createTopic(name, 1, replicas.size(), Map.of()).join();
        PartitionInfo p = partition(name, 0);
        if (!p.replicas().equals(replicas)) {
            controller.alterPartitionReassignment(name, 0, replicas).join();
            for (int r : replicas) {
                if (partition(name, 0).addingReplicas().contains(r)) {
                    controller.replicaCaughtUp(r, epochs[r], name, 0).join();
                }
            }
            PartitionInfo moved = partition(name, 0);
            if (!moved.removingReplicas().isEmpty()) {
                controller.replicaDrained(moved.leader(), epochs[moved.leader()], name, 0).join();
            }
        }
        assertThat(partition(name, 0).replicas()).isEqualTo(replicas);
    }

    private static ControllerError errorOf(CompletableFuture<?> f) {
        try {
            f.join();
        } catch (CompletionException e) {
            return ((ControllerException) e.getCause()).error();
        }
        throw new AssertionError("expected a ControllerException");
    }

    @Test
    void aMoveKeepsTheOldLeaderUntilTheNewReplicaCaughtUpThenSwitchesWithANewLeaderEpoch() {
        topicOn("t", List.of(1));
        PartitionInfo before = partition("t", 0);

        controller.alterPartitionReassignment("t", 0, List.of(2)).join();

        PartitionInfo moving = partition("t", 0);
        assertThat(moving.replicas()).containsExactly(2, 1);
        assertThat(moving.addingReplicas()).containsExactly(2);
        assertThat(moving.removingReplicas()).containsExactly(1);
        assertThat(moving.isr()).containsExactly(1);
        assertThat(moving.leader()).isEqualTo(1);
        assertThat(moving.leaderEpoch()).isEqualTo(before.leaderEpoch());

        controller.replicaCaughtUp(2, epochs[2], "t", 0).join();

        PartitionInfo switched = partition("t", 0);
        assertThat(switched.replicas()).containsExactly(2, 1);
        assertThat(switched.isr()).containsExactly(2);
        assertThat(switched.leader()).isEqualTo(2);
        assertThat(switched.leaderEpoch()).isEqualTo(before.leaderEpoch() + 1);
        assertThat(switched.addingReplicas()).isEmpty();
        assertThat(switched.removingReplicas()).containsExactly(1);

        controller.replicaDrained(2, epochs[2], "t", 0).join();

        PartitionInfo moved = partition("t", 0);
        assertThat(moved.replicas()).containsExactly(2);
        assertThat(moved.isr()).containsExactly(2);
        assertThat(moved.leader()).isEqualTo(2);
        assertThat(moved.leaderEpoch()).isEqualTo(before.leaderEpoch() + 1);
        assertThat(moved.reassigning()).isFalse();
    }

    @Test
    void whileTheNewLeaderDrainsTheFormerOneTheMoveCanNeitherBeCancelledNorReplacedAndOnlyTheNewLeaderEndsIt() {
        topicOn("t", List.of(1));
        controller.alterPartitionReassignment("t", 0, List.of(2)).join();
        controller.replicaCaughtUp(2, epochs[2], "t", 0).join();

        assertThat(errorOf(controller.alterPartitionReassignment("t", 0, null)))
                .isEqualTo(ControllerError.NO_REASSIGNMENT_IN_PROGRESS);
        assertThat(errorOf(controller.alterPartitionReassignment("t", 0, List.of(3))))
                .isEqualTo(ControllerError.REASSIGNMENT_IN_PROGRESS);
        assertThat(errorOf(controller.replicaDrained(1, epochs[1], "t", 0)))
                .isEqualTo(ControllerError.NO_REASSIGNMENT_IN_PROGRESS);
        assertThat(partition("t", 0).removingReplicas()).containsExactly(1);

        controller.replicaDrained(2, epochs[2], "t", 0).join();
        assertThat(partition("t", 0).reassigning()).isFalse();
        assertThat(errorOf(controller.replicaDrained(2, epochs[2], "t", 0)))
                .isEqualTo(ControllerError.NO_REASSIGNMENT_IN_PROGRESS);
    }

    @Test
    void aMoveToTwoNewReplicasCompletesOnlyWhenBothCaughtUp() {
        topicOn("t", List.of(1));
        controller.alterPartitionReassignment("t", 0, List.of(2, 3)).join();

        controller.replicaCaughtUp(3, epochs[3], "t", 0).join();
        assertThat(partition("t", 0).reassigning()).isTrue();
        assertThat(partition("t", 0).isr()).containsExactly(1, 3);
        assertThat(partition("t", 0).leader()).isEqualTo(1);

        controller.replicaCaughtUp(2, epochs[2], "t", 0).join();
        assertThat(partition("t", 0)).isEqualTo(new PartitionInfo(List.of(2, 3, 1), List.of(3, 2), 2, 1, 3,
                List.of(), List.of(1)));
        controller.replicaDrained(2, epochs[2], "t", 0).join();
        assertThat(partition("t", 0)).isEqualTo(new PartitionInfo(List.of(2, 3), List.of(3, 2), 2, 1, 4));
    }

    @Test
    void aCancelReturnsToTheOriginalReplicasAndASecondCancelFindsNothingToCancel() {
        topicOn("t", List.of(1));
        controller.alterPartitionReassignment("t", 0, List.of(2)).join();

        controller.alterPartitionReassignment("t", 0, null).join();

        PartitionInfo p = partition("t", 0);
        assertThat(p.replicas()).containsExactly(1);
        assertThat(p.isr()).containsExactly(1);
        assertThat(p.leader()).isEqualTo(1);
        assertThat(p.reassigning()).isFalse();
        assertThat(errorOf(controller.alterPartitionReassignment("t", 0, null)))
                .isEqualTo(ControllerError.NO_REASSIGNMENT_IN_PROGRESS);
        assertThat(errorOf(controller.replicaCaughtUp(2, epochs[2], "t", 0)))
                .isEqualTo(ControllerError.NO_REASSIGNMENT_IN_PROGRESS);
    }

    @Test
    void aNewTargetReplacesTheMoveUnderWayFromTheOriginalReplicas() {
        topicOn("t", List.of(1));
        controller.alterPartitionReassignment("t", 0, List.of(2)).join();

        controller.alterPartitionReassignment("t", 0, List.of(3)).join();

        PartitionInfo p = partition("t", 0);
        assertThat(p.replicas()).containsExactly(3, 1);
        assertThat(p.addingReplicas()).containsExactly(3);
        assertThat(p.removingReplicas()).containsExactly(1);
    }

    @Test
    void aTargetWithinTheInSyncReplicasCompletesAtOnceAndMovesTheLeaderIfItLeaves() {
        topicOn("t", List.of(1, 2));
        int epoch = partition("t", 0).leaderEpoch();

        controller.alterPartitionReassignment("t", 0, List.of(2)).join();

        PartitionInfo p = partition("t", 0);
        assertThat(p.replicas()).containsExactly(2, 1);
        assertThat(p.removingReplicas()).containsExactly(1);
        assertThat(p.leader()).isEqualTo(2);
        assertThat(p.leaderEpoch()).isEqualTo(epoch + 1);
        controller.replicaDrained(2, epochs[2], "t", 0).join();
        assertThat(partition("t", 0).replicas()).containsExactly(2);
        assertThat(partition("t", 0).reassigning()).isFalse();
    }

    @Test
    void badTargetsAreRefusedAsKafkaRefusesThem() {
        topicOn("t", List.of(1));

        assertThat(errorOf(controller.alterPartitionReassignment("t", 0, List.of(9))))
                .isEqualTo(ControllerError.INVALID_REPLICA_ASSIGNMENT);
        assertThat(errorOf(controller.alterPartitionReassignment("t", 0, List.of())))
                .isEqualTo(ControllerError.INVALID_REPLICA_ASSIGNMENT);
        assertThat(errorOf(controller.alterPartitionReassignment("t", 0, List.of(2, 2))))
                .isEqualTo(ControllerError.INVALID_REPLICA_ASSIGNMENT);
        assertThat(errorOf(controller.alterPartitionReassignment("t", 1, List.of(2))))
                .isEqualTo(ControllerError.UNKNOWN_TOPIC_OR_PARTITION);
        assertThat(errorOf(controller.alterPartitionReassignment("nope", 0, List.of(2))))
                .isEqualTo(ControllerError.UNKNOWN_TOPIC_OR_PARTITION);
        assertThat(errorOf(controller.replicaCaughtUp(2, epochs[2] + 1, "t", 0)))
                .isEqualTo(ControllerError.STALE_BROKER_EPOCH);
        assertThat(partition("t", 0).reassigning()).isFalse();
    }

    @Test
    void theOldLeaderFencedDuringTheMoveLeavesThePartitionLeaderlessUntilTheNewReplicaCaughtUp() {
        topicOn("t", List.of(1));
        controller.alterPartitionReassignment("t", 0, List.of(2)).join();

        clock.advance(Controller.DEFAULT_SESSION_TIMEOUT_MS + 1);
        controller.heartbeat(2, epochs[2]).join();
        controller.heartbeat(3, epochs[3]).join();
        assertThat(controller.tick().join()).containsExactly(1);
        assertThat(partition("t", 0).leader()).isEqualTo(MetadataRecord.NO_LEADER);
        assertThat(partition("t", 0).reassigning()).isTrue();

        controller.replicaCaughtUp(2, epochs[2], "t", 0).join();
        assertThat(partition("t", 0).leader()).isEqualTo(2);
        // the replica that led until it was fenced may hold acknowledged records: it stays until drained
        assertThat(partition("t", 0).replicas()).containsExactly(2, 1);
        assertThat(partition("t", 0).removingReplicas()).containsExactly(1);
    }

    @Test
    void anImageRebuiltFromItsRecordsKeepsTheMoveUnderWay() {
        topicOn("t", List.of(1));
        controller.alterPartitionReassignment("t", 0, List.of(2, 3)).join();
        controller.replicaCaughtUp(3, epochs[3], "t", 0).join();

        List<MetadataRecord> records = log.read(MetadataImage::toRecords);
        MetadataImage rebuilt = new MetadataImage();
        assertThat(rebuilt.applyBatch(records)).doesNotContain(false);

        assertThat(rebuilt).isEqualTo(log.read(image -> {
            MetadataImage copy = new MetadataImage();
            copy.applyBatch(image.toRecords());
            return copy;
        }));
        assertThat(rebuilt.topics().get(rebuilt.topicId("t")).partitions().get(0)).isEqualTo(partition("t", 0));
    }

    @Test
    void aPreferredElectionMovesLeadershipBackToTheFirstReplicaWhenItIsInSync() {
        topicOn("t", List.of(1, 2));
        controller.alterPartitionReassignment("t", 0, List.of(2, 1)).join(); // same replicas, 2 preferred
        assertThat(partition("t", 0).leader()).isEqualTo(1);

        controller.electLeader("t", 0, false).join();

        assertThat(partition("t", 0).leader()).isEqualTo(2);
        assertThat(errorOf(controller.electLeader("t", 0, false))).isEqualTo(ControllerError.ELECTION_NOT_NEEDED);
        assertThat(errorOf(controller.electLeader("t", 0, true))).isEqualTo(ControllerError.ELECTION_NOT_NEEDED);
    }

    @Test
    void anUncleanElectionPicksALiveReplicaOfALeaderlessPartitionAndNoneWhenAllAreFenced() {
        topicOn("t", List.of(1));
        clock.advance(Controller.DEFAULT_SESSION_TIMEOUT_MS + 1);
        controller.heartbeat(2, epochs[2]).join();
        controller.heartbeat(3, epochs[3]).join();
        controller.tick().join();
        assertThat(partition("t", 0).leader()).isEqualTo(MetadataRecord.NO_LEADER);

        assertThat(errorOf(controller.electLeader("t", 0, false)))
                .isEqualTo(ControllerError.PREFERRED_LEADER_NOT_AVAILABLE);
        assertThat(errorOf(controller.electLeader("t", 0, true)))
                .isEqualTo(ControllerError.ELIGIBLE_LEADERS_NOT_AVAILABLE);
        assertThat(errorOf(controller.electLeader("t", 1, true)))
                .isEqualTo(ControllerError.UNKNOWN_TOPIC_OR_PARTITION);
    }
}
