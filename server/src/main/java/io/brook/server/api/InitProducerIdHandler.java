package io.brook.server.api;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.wire.message.InitProducerIdRequest;
import io.brook.wire.message.InitProducerIdResponse;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.Errors;

/**
 * InitProducerId (key 22) for idempotent producers: a fresh producer id at epoch 0 for every
 * request without a transactional id — also when the client passes its current id and epoch
 * (KIP-360 epoch bump), which is what Kafka does for a non-transactional producer.
 *
 * <p>Transactional ids need the transaction coordinator, which this broker does not have yet:
 * they are answered with COORDINATOR_NOT_AVAILABLE.
 */
final class InitProducerIdHandler implements ApiHandler<InitProducerIdRequest> {

    private final BrokerContext broker;

    InitProducerIdHandler(BrokerContext broker) {
        this.broker = broker;
    }

    @Override
    public void handle(RequestContext ctx, InitProducerIdRequest request) {
        if (request.transactionalId() != null) {
            ctx.respond(request.errorResponse(ctx.apiVersion(), Errors.COORDINATOR_NOT_AVAILABLE));
            return;
        }
        long id = broker.producerIds().next();
        ctx.respond(new InitProducerIdResponse().errorCode(Errors.NONE.code()).producerId(id).producerEpoch((short) 0));
    }
}
