package io.brook.server.api.txn;

import io.brook.coordinator.txn.TransactionCoordinator;
import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.wire.message.EndTxnRequest;
import io.brook.wire.message.EndTxnResponse;

/**
 * EndTxn (key 26): commit or abort. Answered once PrepareCommit or PrepareAbort is durable in
 * {@code __transaction_state}; the markers follow (the producer's next request for this
 * transactional id gets CONCURRENT_TRANSACTIONS until they are written). v5 is sent by producers
 * running transactions V2 (KIP-890 part 2): the epoch is bumped and the answer carries the
 * producer id and epoch the producer continues with.
 */
public final class EndTxnHandler implements ApiHandler<EndTxnRequest> {

    /** The first version of transactions V2. */
    static final short V2_MIN_VERSION = 5;

    private final BrokerContext broker;

    public EndTxnHandler(BrokerContext broker) {
        this.broker = broker;
    }

    @Override
    public void handle(RequestContext ctx, EndTxnRequest request) {
        short version = ctx.apiVersion();
        ctx.respondWhenDone(TxnRequests.coordinator(broker)
                .endTxn(request.transactionalId(), request.producerId(), request.producerEpoch(), request.committed(),
                        version >= V2_MIN_VERSION ? TransactionCoordinator.CLIENT_VERSION_V2 : 0)
                .thenApply(r -> new EndTxnResponse().errorCode(TxnRequests.forVersion(r.error(), version, 2).code())
                        .producerId(r.producerId()).producerEpoch(r.producerEpoch())));
    }
}
