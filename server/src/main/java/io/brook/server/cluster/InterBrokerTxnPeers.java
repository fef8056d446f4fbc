package io.brook.server.cluster;

import io.brook.server.cluster.interbroker.InterBrokerClient;
import io.brook.server.node.ClusterView.PartitionState;
import io.brook.server.node.ClusterView.TopicState;
import io.brook.server.node.PartitionMarkers;
import io.brook.server.node.TxnPeers;
import io.brook.server.topic.TopicNames;
import io.brook.wire.message.AddPartitionsToTxnRequest;
import io.brook.wire.message.AddPartitionsToTxnRequest.AddPartitionsToTxnTopic;
import io.brook.wire.message.AddPartitionsToTxnRequest.AddPartitionsToTxnTransaction;
import io.brook.wire.message.AddPartitionsToTxnResponse;
import io.brook.wire.message.AddPartitionsToTxnResponse.AddPartitionsToTxnPartitionResult;
import io.brook.wire.message.AddPartitionsToTxnResponse.AddPartitionsToTxnResult;
import io.brook.wire.message.AddPartitionsToTxnResponse.AddPartitionsToTxnTopicResult;
import io.brook.wire.message.WriteTxnMarkersRequest;
import io.brook.wire.message.WriteTxnMarkersRequest.WritableTxnMarker;
import io.brook.wire.message.WriteTxnMarkersRequest.WritableTxnMarkerTopic;
import io.brook.wire.message.WriteTxnMarkersResponse;
import io.brook.wire.message.WriteTxnMarkersResponse.WritableTxnMarkerPartitionResult;
import io.brook.wire.message.WriteTxnMarkersResponse.WritableTxnMarkerResult;
import io.brook.wire.message.WriteTxnMarkersResponse.WritableTxnMarkerTopicResult;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.ToIntFunction;

/**
 * {@link TxnPeers} over the {@link InterBrokerClient} and this node's metadata image: the
 * coordinator of a transactional id is the leader of its partition of {@code __transaction_state}
 * ({@code partitionFor}, Kafka's hash modulo {@code transaction.state.log.num.partitions}, which
 * every node must agree on), markers go out as WriteTxnMarkers v2 and verifications as
 * AddPartitionsToTxn v4 ({@code verify_only}) or v5 (the implicit add of transactions V2), the
 * versions Kafka's brokers send. Every node runs the same Brook version, so no version is
 * negotiated.
 */
final class InterBrokerTxnPeers implements TxnPeers {

    static final short WRITE_TXN_MARKERS_VERSION = 2;
    static final short VERIFY_VERSION = 4;
    static final short ADD_VERSION = 5;

    private final ClusterBroker broker;
    private final InterBrokerClient client;
    private final ToIntFunction<String> partitionFor;

    InterBrokerTxnPeers(ClusterBroker broker, InterBrokerClient client, ToIntFunction<String> partitionFor) {
        this.broker = broker;
        this.client = client;
        this.partitionFor = partitionFor;
    }

    @Override
    public int nodeId() {
        return broker.nodeId();
    }

    @Override
    public int coordinatorOf(String transactionalId) {
        int leader = leaderOf(TopicNames.TRANSACTION_STATE, partitionFor.applyAsInt(transactionalId));
        return leader == NO_PARTITION ? NO_LEADER : leader;
    }

    @Override
    public int leaderOf(String topic, int partition) {
        TopicState t = broker.topic(topic);
        if (t == null || partition < 0 || partition >= t.partitions().size()) {
            return NO_PARTITION;
        }
        PartitionState p = t.partitions().get(partition);
        return p.leader() < 0 ? NO_LEADER : p.leader();
    }

    @Override
    public CompletableFuture<Map<String, Map<Integer, Errors>>> writeMarkers(int node, long producerId,
            short producerEpoch, boolean commit, boolean transactionsV2, Map<String, ? extends Set<Integer>> partitions) {
        List<WritableTxnMarkerTopic> topics = new ArrayList<>(partitions.size());
        partitions.forEach((t, ps) -> topics.add(new WritableTxnMarkerTopic().name(t).partitionIndexes(List.copyOf(ps))));
        WriteTxnMarkersRequest request = new WriteTxnMarkersRequest().markers(List.of(new WritableTxnMarker()
                .producerId(producerId).producerEpoch(producerEpoch).transactionResult(commit).topics(topics)
                .coordinatorEpoch(PartitionMarkers.COORDINATOR_EPOCH).transactionVersion((byte) (transactionsV2 ? 2 : 0))));
        return client.send(node, request, WRITE_TXN_MARKERS_VERSION, WriteTxnMarkersResponse::read).thenApply(r -> {
            Map<String, Map<Integer, Errors>> out = new LinkedHashMap<>();
            for (WritableTxnMarkerResult m : r.markers()) {
                for (WritableTxnMarkerTopicResult t : m.topics()) {
                    for (WritableTxnMarkerPartitionResult p : t.partitions()) {
                        out.computeIfAbsent(t.name(), k -> new LinkedHashMap<>()).put(p.partitionIndex(),
                                Errors.forCode(p.errorCode()));
                    }
                }
            }
            return out;
        });
    }

    @Override
    public CompletableFuture<Map<String, Map<Integer, Errors>>> addPartitions(int node, String transactionalId,
            long producerId, short producerEpoch, boolean verifyOnly, Map<String, ? extends Set<Integer>> partitions) {
        List<AddPartitionsToTxnTopic> topics = new ArrayList<>(partitions.size());
        partitions.forEach((t, ps) -> topics.add(new AddPartitionsToTxnTopic().name(t).partitions(List.copyOf(ps))));
        AddPartitionsToTxnRequest request = new AddPartitionsToTxnRequest().transactions(List.of(
                new AddPartitionsToTxnTransaction().transactionalId(transactionalId).producerId(producerId)
                        .producerEpoch(producerEpoch).verifyOnly(verifyOnly).topics(topics)));
        short version = verifyOnly ? VERIFY_VERSION : ADD_VERSION;
        return client.send(node, request, version, AddPartitionsToTxnResponse::read).thenApply(r -> {
            Map<String, Map<Integer, Errors>> out = new LinkedHashMap<>();
            Errors top = Errors.forCode(r.errorCode());
            for (AddPartitionsToTxnResult result : r.resultsByTransaction()) {
                for (AddPartitionsToTxnTopicResult t : result.topicResults()) {
                    for (AddPartitionsToTxnPartitionResult p : t.resultsByPartition()) {
                        out.computeIfAbsent(t.name(), k -> new LinkedHashMap<>()).put(p.partitionIndex(),
                                top != Errors.NONE ? top : Errors.forCode(p.partitionErrorCode()));
                    }
                }
            }
            // a partition the answer does not name (a top-level refusal) gets the top-level error
            partitions.forEach((t, ps) -> ps.forEach(p -> out.computeIfAbsent(t, k -> new LinkedHashMap<>())
                    .putIfAbsent(p, top != Errors.NONE ? top : Errors.UNKNOWN_SERVER_ERROR)));
            return out;
        });
    }
}
