package io.brook.cluster.member;

import io.brook.cluster.controller.ProducerIdBlock;
import io.brook.cluster.metadata.MetadataImage;
import io.brook.cluster.metadata.MetadataRecord;
import java.io.Closeable;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * One node's membership in a Brook cluster, as the broker on that node uses it: the metadata
 * image this node has applied, the controller's decisions asked for from any node, and this
 * broker's registration. The broker never talks to Ratis itself; it reads the image, listens for
 * its changes and asks for decisions here.
 *
 * <p>Every decision future completes only once the decision's records are committed <em>and
 * applied to this node's image</em>, so a caller that waits for it reads its own write. A refused
 * decision fails with a {@link io.brook.cluster.controller.ControllerException} carrying Kafka's
 * error ({@link io.brook.cluster.controller.ControllerError}); a decision that could not reach a
 * controller in time fails with NOT_CONTROLLER (retriable).
 */
public interface ClusterMember extends Closeable {

    /**
     * Stops like a crashed node, without a controlled shutdown: the controller fences it only
     * when its session times out (what {@code Brook.crash()} simulates). By default the same as
     * {@link #close()}.
     */
    default void closeWithoutShutdown() throws IOException {
        close();
    }

    /** This node's {@code node.id}: its broker id and, on a voter, its Raft peer id. */
    int nodeId();

    /** The cluster id every node of this cluster shares. */
    String clusterId();

    /**
     * Reads this node's image under the state machine's lock. {@code reader} must be short and
     * must not keep references into the image (copy what it keeps).
     */
    <T> T read(Function<MetadataImage, T> reader);

    /** The index of the last metadata entry applied here, -1 before any. */
    long lastAppliedIndex();

    /**
     * Registers {@code listener} to run after every entry applied to this node's image (on the
     * apply thread: it must be quick and must not block or ask for decisions synchronously).
     */
    void onChange(Runnable listener);

    /** The controller (the Ratis leader) as this node knows it, or -1 while none is known. */
    int controllerId();

    /** This broker's epoch from its current registration, or -1 before it is registered. */
    long brokerEpoch();

    /** Completes once this broker is registered and unfenced (it may lead partitions). */
    CompletableFuture<Void> unfenced();

    /** Creates a topic with its partitions placed over the live brokers; completes with its id. */
    CompletableFuture<UUID> createTopic(String name, int partitions, int replicationFactor,
                                        Map<String, String> configs);

    /** Creates a topic whose partition p has the replicas {@code assignment.get(p)}; completes with its id. */
    CompletableFuture<UUID> createTopic(String name, List<List<Integer>> assignment, Map<String, String> configs);

    /** Grows a topic to {@code totalCount} partitions. */
    CompletableFuture<Void> createPartitions(String name, int totalCount);

    /** Grows a topic to {@code totalCount} partitions, new partition k on the replicas {@code assignment.get(k)}. */
    CompletableFuture<Void> createPartitions(String name, int totalCount, List<List<Integer>> assignment);

    /** Deletes a topic with its partitions and configs. */
    CompletableFuture<Void> deleteTopic(String name);

    /** Sets ({@code value} non-null) or removes ({@code value} null) one topic config. */
    CompletableFuture<Void> alterTopicConfig(String topic, String key, String value);

    /**
     * Replaces all of a topic's config overrides with {@code configs} (values non-null) in one
     * decision of the controller, applied all or nothing.
     */
    CompletableFuture<Void> replaceTopicConfigs(String topic, Map<String, String> configs);

    /**
     * As {@link #replaceTopicConfigs(String, Map)}, only if the topic's overrides are still {@code
     * expected} at the controller; else the future fails with INVALID_UPDATE_VERSION
     * ({@code ControllerException}) and nothing changed. Members that cannot compare refuse it.
     */
    default CompletableFuture<Void> replaceTopicConfigs(String topic, Map<String, String> expected,
                                                        Map<String, String> configs) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException("no conditional config changes"));
    }

    /** A block of producer ids that belongs to this broker. */
    CompletableFuture<ProducerIdBlock> allocateProducerIds();

    /**
     * Moves a partition to the {@code target} replicas (Kafka's AlterPartitionReassignments), or
     * cancels its move when {@code target} is null. Completes when the controller recorded it.
     */
    default CompletableFuture<Void> alterPartitionReassignment(String topic, int partition, List<Integer> target) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException("reassignments"));
    }

    /**
     * Tells the controller that this broker, a replica being added to the partition, has copied
     * its log: it joins the ISR, and the move completes once every new replica has.
     */
    default CompletableFuture<Void> replicaCaughtUp(String topic, int partition) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException("reassignments"));
    }

    /**
     * Tells the controller that this broker, the new leader of a moved partition, has read the
     * former leader's log to its end: the former leader leaves the replicas.
     */
    default CompletableFuture<Void> replicaDrained(String topic, int partition) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException("reassignments"));
    }

    /**
     * Elects a partition's leader (Kafka's ElectLeaders): the preferred replica, or with
     * {@code unclean} any live replica of a partition without one.
     */
    default CompletableFuture<Void> electLeader(String topic, int partition, boolean unclean) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException("elections"));
    }

    /**
     * Controlled shutdown: stops this broker's heartbeats and asks the controller to fence it
     * now (so that clients and the controller need not wait out {@code broker.session.timeout.ms});
     * completes when the fence is applied here, or fails (NOT_CONTROLLER) when no controller took
     * it. {@link #close()} does this itself, waiting a bounded time.
     */
    CompletableFuture<Void> shutDownBroker();

    /** The quorum as this node sees it, for DescribeQuorum (API 55) and operators. */
    QuorumStatus quorumStatus();

    /**
     * The voters of the metadata quorum as this node's Raft configuration has them (node id to
     * {@code host:port}), which AddRaftVoter and RemoveRaftVoter change.
     */
    default Map<Integer, String> voterAddresses() {
        return Map.of();
    }

    /**
     * Makes {@code nodeId}, which follows the metadata log as a listener, a voter (Kafka's
     * AddRaftVoter); fails with DUPLICATE_VOTER if it is one, VOTER_NOT_FOUND if it does not follow
     * the log.
     */
    default CompletableFuture<Void> addVoter(int nodeId) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException("addVoter"));
    }

    /**
     * Makes voter {@code nodeId} a listener (Kafka's RemoveRaftVoter: it keeps following the log
     * but no longer votes); refused for the last voter and for a node that still leads partitions.
     */
    default CompletableFuture<Void> removeVoter(int nodeId) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException("removeVoter"));
    }

    /**
     * Forgets broker {@code brokerId}'s registration through the controller (Kafka's
     * UnregisterBroker), fencing it first if it is live; fails with BROKER_ID_NOT_REGISTERED for
     * an id that is not registered.
     */
    default CompletableFuture<Void> unregisterBroker(int brokerId) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException("unregisterBroker"));
    }

    /**
     * Writes ACL entries, SCRAM credentials, client quotas, delegation tokens and group settings
     * (records of types 14 to 22) through the controller as one metadata log entry, so that every
     * node's image has them. Completes once the entry is committed and applied to this node's image, with, per
     * record in order, whether the image applied it (false for the removal of an absent ACL entry
     * or credential, the new expiry of an absent token, or a malformed record; the removal of an
     * absent token applies); fails with
     * INVALID_REQUEST ({@code ControllerException}), nothing written, for a record of another type
     * or more than {@code Controller.MAX_SECURITY_RECORDS} records.
     */
    default CompletableFuture<List<Boolean>> writeSecurity(List<MetadataRecord> records) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException("writeSecurity"));
    }

    /**
     * A read barrier: completes once this node's image has applied everything the controller had
     * applied when it was asked, so that every change any node was told is done is in this node's
     * image (what a change that matches on the image, like DeleteAcls's filters, needs: Kafka's
     * brokers forward it to the active controller for the same reason). Nothing is written to the
     * log. Fails with NOT_CONTROLLER while no controller answers, and with INVALID_REQUEST from a
     * controller of an earlier version that does not know the request.
     */
    default CompletableFuture<Void> readBarrier() {
        return CompletableFuture.failedFuture(new UnsupportedOperationException("readBarrier"));
    }

    /**
     * The quorum as the leader sees it (every voter's log end and last contact), asked of the
     * leader through the controller channel, as a Kafka broker forwards DescribeQuorum to the
     * active controller. Fails with NOT_CONTROLLER while no leader answers.
     */
    CompletableFuture<QuorumStatus> leaderQuorumStatus();
}
