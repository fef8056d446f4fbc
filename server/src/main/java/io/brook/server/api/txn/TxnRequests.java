package io.brook.server.api.txn;

import io.brook.coordinator.txn.TransactionCoordinator;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.security.Authorizer;
import io.brook.wire.protocol.Errors;

/**
 * What the transaction API handlers share. Each (InitProducerId with a transactional id,
 * AddPartitionsToTxn, AddOffsetsToTxn, EndTxn, DescribeTransactions, ListTransactions) is a thin
 * adapter over the {@link TransactionCoordinator}, which owns all transaction state on its own
 * thread and completes the future there, after its write is durable; the completion only calls
 * {@link RequestContext#respond}.
 */
final class TxnRequests {

    private TxnRequests() {
    }

    static TransactionCoordinator coordinator(BrokerContext broker) {
        TransactionCoordinator c = broker.transactions();
        if (c == null) {
            throw new IllegalStateException("the transaction coordinator is not running");
        }
        return c;
    }

    /**
     * Whether the client of {@code ctx} may do {@code operation} on the resource; always with no
     * authorizer or a disabled one.
     */
    static boolean may(Authorizer authorizer, RequestContext ctx, byte operation, byte resourceType, String name) {
        return authorizer == null || authorizer.authorize(ctx.session().principal(), ctx.clientHost(), operation,
                resourceType, name == null ? "" : name);
    }

    /**
     * PRODUCER_FENCED came with Kafka 2.7; older request versions are told INVALID_PRODUCER_EPOCH,
     * as Kafka does ({@code firstFencedVersion}: InitProducerId 4, AddPartitionsToTxn, AddOffsetsToTxn
     * and EndTxn 2).
     */
    static Errors forVersion(Errors e, short version, int firstFencedVersion) {
        return e == Errors.PRODUCER_FENCED && version < firstFencedVersion ? Errors.INVALID_PRODUCER_EPOCH : e;
    }
}
