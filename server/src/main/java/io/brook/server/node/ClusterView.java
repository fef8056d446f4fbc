package io.brook.server.node;

import io.brook.wire.protocol.Errors;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * The cluster as the handlers of a node in cluster mode see it (docs/cluster.md, section 6): the
 * unfenced brokers, the controller, the topics and their partitions' leaders, epochs, replicas
 * and ISR from the metadata image this node has applied, and the controller's topic decisions.
 * Null on a single node ({@link BrokerContext#cluster()}), where the handlers answer for this
 * node alone.
 *
 * <p>The image is the truth: what this returns may be ahead of the local topic registry, which
 * follows it. The decisions complete once applied to this node's image and mirrored into its
 * topics, or fail with a {@link ClusterAdminException} carrying Kafka's error.
 */
public interface ClusterView extends PartitionLeadership {

    /** A broker: its id, its endpoint on one listener, its rack (null when none). */
    record BrokerNode(int id, String host, int port, String rack) {
    }

    /**
     * A partition: its leader (-1 none), leader epoch, replicas, ISR, and the replicas on
     * brokers that are fenced or gone.
     */
    record PartitionState(int partition, int leader, int leaderEpoch, List<Integer> replicas, List<Integer> isr,
                          List<Integer> offlineReplicas) {
    }

    /** A topic: name, id, its partitions in order, its config overrides. */
    record TopicState(String name, UUID id, List<PartitionState> partitions, Map<String, String> configs) {
    }

    /**
     * A partition being moved (docs/cluster.md, "Moving partitions"): its replicas (the target
     * followed by those being removed), the replicas being added and those being removed.
     */
    record Reassignment(String topic, int partition, List<Integer> replicas, List<Integer> adding,
                        List<Integer> removing) {
    }

    /** The controller's node id, -1 while none is known. */
    int controllerId();

    /** Every unfenced broker with an endpoint on {@code listenerName}, by id. */
    List<BrokerNode> brokers(String listenerName);

    /** Every topic, by name. */
    List<TopicState> topics();

    /** The topic of that name, or null. */
    TopicState topic(String name);

    /** The topic of that id, or null. */
    TopicState topic(UUID id);

    /**
     * The metadata quorum as this node sees it, for DescribeQuorum. A view without a quorum
     * behind it (a test's) knows no leader.
     */
    default MetadataQuorum quorum() {
        return MetadataQuorum.UNKNOWN;
    }

    /**
     * The other nodes as the transaction code needs them (markers to partition leaders, the
     * verification of transactional writes with the coordinator); null when this view has none.
     */
    default TxnPeers txnPeers() {
        return null;
    }

    /**
     * The metadata quorum as its leader sees it (as Kafka forwards DescribeQuorum to the active
     * controller), or this node's own view when the leader does not answer in time.
     */
    default CompletableFuture<MetadataQuorum> leaderQuorum() {
        return CompletableFuture.completedFuture(quorum());
    }

    /** Creates a topic through the controller. */
    CompletableFuture<Void> createTopic(String name, int partitions, int replicationFactor, Map<String, String> configs);

    /** Creates a topic through the controller, partition p on the replicas {@code assignment.get(p)}. */
    CompletableFuture<Void> createTopic(String name, List<List<Integer>> assignment, Map<String, String> configs);

    /** Deletes a topic through the controller. */
    CompletableFuture<Void> deleteTopic(String name);

    /** Grows a topic to {@code totalCount} partitions through the controller. */
    CompletableFuture<Void> createPartitions(String name, int totalCount);

    /** Grows a topic to {@code totalCount} partitions, new partition k on the replicas {@code assignment.get(k)}. */
    CompletableFuture<Void> createPartitions(String name, int totalCount, List<List<Integer>> assignment);

    /** Replaces all of a topic's config overrides through the controller, in one decision. */
    CompletableFuture<Void> replaceTopicConfigs(String topic, Map<String, String> configs);

    /**
     * As {@link #replaceTopicConfigs(String, Map)}, only if the controller still has {@code
     * expected} as the topic's overrides (compare-and-set), else it fails with INVALID_UPDATE_VERSION.
     */
    default CompletableFuture<Void> replaceTopicConfigs(String topic, Map<String, String> expected,
                                                        Map<String, String> configs) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException("no conditional config changes"));
    }

    /**
     * How many times this node's replication throttles made a copy wait so far: a fetch of a
     * copy delayed (follower side) or a follower's fetch of a partition held back (leader side).
     */
    default long replicationThrottleWaits() {
        return 0;
    }

    /** The partitions being moved, by topic and partition. */
    default List<Reassignment> reassignments() {
        return List.of();
    }

    /**
     * Moves a partition to the {@code target} replicas through the controller, or cancels its move
     * when {@code target} is null.
     */
    default CompletableFuture<Void> alterPartitionReassignment(String topic, int partition, List<Integer> target) {
        return CompletableFuture.failedFuture(new ClusterAdminException(
                Errors.UNSUPPORTED_VERSION, "This cluster view cannot move partitions."));
    }

    /**
     * Elects a partition's leader through the controller (ElectLeaders): the preferred replica,
     * or with {@code unclean} any live replica of a partition without a leader. Fails with
     * ELECTION_NOT_NEEDED, PREFERRED_LEADER_NOT_AVAILABLE or ELIGIBLE_LEADERS_NOT_AVAILABLE as
     * Kafka's controller does.
     */
    default CompletableFuture<Void> electLeader(String topic, int partition, boolean unclean) {
        return CompletableFuture.failedFuture(new ClusterAdminException(
                Errors.UNSUPPORTED_VERSION, "This cluster view cannot elect leaders."));
    }

    /**
     * Makes {@code nodeId}, which follows the metadata log as a listener, a voter of the metadata
     * quorum (AddRaftVoter): fails with DUPLICATE_VOTER, or VOTER_NOT_FOUND when the node does not
     * follow the log or reported another {@code directoryId}.
     */
    default CompletableFuture<Void> addVoter(int nodeId, UUID directoryId) {
        return CompletableFuture.failedFuture(new ClusterAdminException(
                Errors.UNSUPPORTED_VERSION, "This cluster view cannot change the voters."));
    }

    /**
     * Makes voter {@code nodeId} a listener of the metadata log (RemoveRaftVoter): fails with
     * VOTER_NOT_FOUND for a node that is not a voter or reported another {@code directoryId}.
     */
    default CompletableFuture<Void> removeVoter(int nodeId, UUID directoryId) {
        return CompletableFuture.failedFuture(new ClusterAdminException(
                Errors.UNSUPPORTED_VERSION, "This cluster view cannot change the voters."));
    }

    /**
     * Forgets broker {@code brokerId}'s registration through the controller (UnregisterBroker),
     * fencing it first if it is live; fails with BROKER_ID_NOT_REGISTERED for an unknown id.
     */
    default CompletableFuture<Void> unregisterBroker(int brokerId) {
        return CompletableFuture.failedFuture(new ClusterAdminException(
                Errors.UNSUPPORTED_VERSION, "This cluster view cannot unregister brokers."));
    }
}
