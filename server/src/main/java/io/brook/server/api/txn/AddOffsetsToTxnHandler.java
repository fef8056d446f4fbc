package io.brook.server.api.txn;

import io.brook.coordinator.group.GroupCoordinator;
import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.topic.TopicNames;
import io.brook.wire.message.AddOffsetsToTxnRequest;
import io.brook.wire.message.AddOffsetsToTxnResponse;
import io.brook.wire.protocol.Errors;
import java.util.Map;
import java.util.Set;

/**
 * AddOffsetsToTxn (key 25): adds the group's partition of {@code __consumer_offsets} to the
 * transaction, so that its end completes the offsets the producer then commits with
 * TxnOffsetCommit.
 */
public final class AddOffsetsToTxnHandler implements ApiHandler<AddOffsetsToTxnRequest> {

    private final BrokerContext broker;

    public AddOffsetsToTxnHandler(BrokerContext broker) {
        this.broker = broker;
    }

    @Override
    public void handle(RequestContext ctx, AddOffsetsToTxnRequest request) {
        short version = ctx.apiVersion();
        GroupCoordinator groups = broker.groups();
        if (groups == null) {
            ctx.respond(new AddOffsetsToTxnResponse().errorCode(Errors.COORDINATOR_NOT_AVAILABLE.code()));
            return;
        }
        if (request.groupId() == null || request.groupId().isEmpty()) {
            ctx.respond(new AddOffsetsToTxnResponse().errorCode(Errors.INVALID_GROUP_ID.code()));
            return;
        }
        int partition = groups.partitionFor(request.groupId());
        ctx.respondWhenDone(TxnRequests.coordinator(broker)
                .addPartitions(request.transactionalId(), request.producerId(), request.producerEpoch(),
                        Map.of(TopicNames.CONSUMER_OFFSETS, Set.of(partition)))
                .thenApply(e -> new AddOffsetsToTxnResponse().errorCode(TxnRequests.forVersion(e, version, 2).code())));
    }
}
