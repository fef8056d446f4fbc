package io.brook.server.api.txn;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.wire.message.InitProducerIdRequest;
import io.brook.wire.message.InitProducerIdResponse;
import io.brook.wire.protocol.Errors;

/**
 * InitProducerId (key 22). Without a transactional id: a fresh producer id at epoch 0 for every
 * request — also when the client passes its current id and epoch (KIP-360 epoch bump), which is
 * what Kafka does for a non-transactional producer. With one: the transaction coordinator's
 * answer (epoch bump, fencing of an older instance, KIP-360 recovery from v3, a new producer id
 * once the epoch is exhausted).
 */
public final class InitProducerIdHandler implements ApiHandler<InitProducerIdRequest> {

    private final BrokerContext broker;

    public InitProducerIdHandler(BrokerContext broker) {
        this.broker = broker;
    }

    @Override
    public void handle(RequestContext ctx, InitProducerIdRequest request) {
        short version = ctx.apiVersion();
        if (request.transactionalId() == null) {
            // in cluster mode a new block waits for the controller: answered then, holding no thread
            ctx.respondWhenDone(broker.producerIds().nextAsync().handle(InitProducerIdHandler::idempotentAnswer));
            return;
        }
        long expectedPid = version >= 3 ? request.producerId() : -1L;
        short expectedEpoch = version >= 3 ? request.producerEpoch() : -1;
        ctx.respondWhenDone(TxnRequests.coordinator(broker)
                .initProducerId(request.transactionalId(), request.transactionTimeoutMs(), expectedPid, expectedEpoch)
                .thenApply(r -> new InitProducerIdResponse().errorCode(TxnRequests.forVersion(r.error(), version, 4).code())
                        .producerId(r.producerId()).producerEpoch(r.producerEpoch())));
    }

    /**
     * The answer to an idempotent producer's InitProducerId once its id, or the failure to get
     * one, is known. A block not had (this node not registered with the controller yet, the
     * controller moving) is passing, so the failure is answered with the error clients retry
     * InitProducerId on, as Kafka answers while its broker waits for a block; the controller's
     * own error (BROKER_ID_NOT_REGISTERED, NOT_CONTROLLER) would be fatal to the producer.
     */
    static InitProducerIdResponse idempotentAnswer(Long id, Throwable failure) {
        return failure == null
                ? new InitProducerIdResponse().errorCode(Errors.NONE.code()).producerId(id).producerEpoch((short) 0)
                : new InitProducerIdResponse().errorCode(Errors.COORDINATOR_LOAD_IN_PROGRESS.code()).producerId(-1)
                        .producerEpoch((short) -1);
    }
}
