package io.brook.server.api.txn;

import io.brook.coordinator.group.CoordinatorMarkerException;
import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.node.PartitionMarkers;
import io.brook.server.topic.Topic;
import io.brook.server.topic.TopicNames;
import io.brook.wire.message.WriteTxnMarkersRequest;
import io.brook.wire.message.WriteTxnMarkersRequest.WritableTxnMarker;
import io.brook.wire.message.WriteTxnMarkersRequest.WritableTxnMarkerTopic;
import io.brook.wire.message.WriteTxnMarkersResponse;
import io.brook.wire.message.WriteTxnMarkersResponse.WritableTxnMarkerPartitionResult;
import io.brook.wire.message.WriteTxnMarkersResponse.WritableTxnMarkerResult;
import io.brook.wire.message.WriteTxnMarkersResponse.WritableTxnMarkerTopicResult;
import io.brook.wire.protocol.Errors;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletableFuture;

/**
 * WriteTxnMarkers (key 27): COMMIT or ABORT markers written into the named partitions. This
 * node's transaction coordinator writes its markers without this API; what arrives here is
 * {@code kafka-transactions.sh abort} (Admin's abortTransaction), which closes a hanging
 * transaction of a partition by writing an ABORT marker with the producer's epoch. Each partition
 * is answered once its marker is durable; a partition this node does not host gets
 * UNKNOWN_TOPIC_OR_PARTITION, a marker the log refuses its error (INVALID_PRODUCER_EPOCH for an
 * epoch older than the producer's); a partition of {@code __consumer_offsets} still loading
 * NOT_LEADER_OR_FOLLOWER, as Kafka answers it.
 */
public final class WriteTxnMarkersHandler implements ApiHandler<WriteTxnMarkersRequest> {

    private final BrokerContext broker;
    private final PartitionMarkers markers;

    public WriteTxnMarkersHandler(BrokerContext broker) {
        this.broker = broker;
        this.markers = new PartitionMarkers(broker.topics(), broker.groups(), Clock.systemUTC());
    }

    @Override
    public void handle(RequestContext ctx, WriteTxnMarkersRequest request) {
        List<CompletableFuture<Void>> waits = new ArrayList<>();
        List<WritableTxnMarkerResult> results = new ArrayList<>(request.markers().size());
        for (WritableTxnMarker m : request.markers()) {
            List<WritableTxnMarkerTopicResult> topics = new ArrayList<>(m.topics().size());
            for (WritableTxnMarkerTopic t : m.topics()) {
                Topic topic = t.name() == null ? null : broker.topics().get(t.name());
                List<WritableTxnMarkerPartitionResult> parts = new ArrayList<>(t.partitionIndexes().size());
                for (int p : t.partitionIndexes()) {
                    WritableTxnMarkerPartitionResult r = new WritableTxnMarkerPartitionResult().partitionIndex(p);
                    Errors e;
                    if (topic == null || p < 0 || p >= topic.partitions()) {
                        e = Errors.UNKNOWN_TOPIC_OR_PARTITION;
                    } else if (broker.leadership().check(t.name(), p, -1) != Errors.NONE) {
                        e = broker.leadership().check(t.name(), p, -1);
                    } else if (TopicNames.CONSUMER_OFFSETS.equals(t.name()) && broker.groups() != null) {
                        waits.add(broker.groups().completeTransaction(m.producerId(), m.producerEpoch(),
                                m.transactionResult(), Set.of(p)).exceptionally(x -> {
                                    Throwable cause = x instanceof CompletionException && x.getCause() != null ? x.getCause() : x;
                                    if (!(cause instanceof CoordinatorMarkerException)) throw new CompletionException(cause);
                                    // the partition is loading (or failed): as Kafka, NOT_LEADER_OR_FOLLOWER tells the
                                    // transaction coordinator that sent the marker to send it again
                                    r.errorCode(Errors.NOT_LEADER_OR_FOLLOWER.code());
                                    return null;
                                }));
                        e = Errors.NONE;
                    } else if (topic.isInternal()) {
                        e = Errors.INVALID_TOPIC_EXCEPTION;
                    } else {
                        e = markers.writeOne(t.name(), p, m.producerId(), m.producerEpoch(), m.transactionResult(),
                                m.transactionVersion() >= 2, m.coordinatorEpoch(), waits);
                    }
                    if (e != Errors.NONE) r.errorCode(e.code());
                    parts.add(r);
                }
                topics.add(new WritableTxnMarkerTopicResult().name(t.name()).partitions(parts));
            }
            results.add(new WritableTxnMarkerResult().producerId(m.producerId()).topics(topics));
        }
        WriteTxnMarkersResponse response = new WriteTxnMarkersResponse().markers(results);
        CompletableFuture.allOf(waits.toArray(new CompletableFuture<?>[0])).whenComplete((v, failure) -> {
            if (failure != null) {
                ctx.fail(failure);
            } else {
                ctx.respond(response);
            }
        });
    }
}
