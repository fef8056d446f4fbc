package io.brook.server.api.txn;

import io.brook.coordinator.txn.TxnDescription;
import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.security.Acl;
import io.brook.server.security.Authorizer;
import io.brook.wire.message.DescribeTransactionsRequest;
import io.brook.wire.message.DescribeTransactionsResponse;
import io.brook.wire.message.DescribeTransactionsResponse.TopicData;
import io.brook.wire.message.DescribeTransactionsResponse.TransactionState;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * DescribeTransactions (key 65): state, producer, time-out, start and partitions of each
 * transactional id. With ACLs, as in Kafka: an id the client may not DESCRIBE is answered
 * TRANSACTIONAL_ID_AUTHORIZATION_FAILED (and not looked up), and only the partitions of topics it
 * may DESCRIBE are listed.
 */
public final class DescribeTransactionsHandler implements ApiHandler<DescribeTransactionsRequest> {

    private final BrokerContext broker;
    private final Authorizer authorizer;

    /** Over {@code broker}'s coordinator; {@code authorizer} null or disabled: no ACLs. */
    public DescribeTransactionsHandler(BrokerContext broker, Authorizer authorizer) {
        this.broker = broker;
        this.authorizer = authorizer != null && authorizer.enabled() ? authorizer : null;
    }

    @Override
    public void handle(RequestContext ctx, DescribeTransactionsRequest request) {
        List<String> allowed = new ArrayList<>();
        for (String id : request.transactionalIds()) {
            if (TxnRequests.may(authorizer, ctx, Acl.DESCRIBE, Acl.TRANSACTIONAL_ID, id)) {
                allowed.add(id);
            }
        }
        ctx.respondWhenDone(TxnRequests.coordinator(broker).describe(allowed).thenApply(list -> {
            Map<String, TransactionState> byId = new HashMap<>();
            for (TxnDescription d : list) {
                List<TopicData> topics = new ArrayList<>();
                d.partitions().forEach((t, ps) -> {
                    if (TxnRequests.may(authorizer, ctx, Acl.DESCRIBE, Acl.TOPIC, t)) {
                        topics.add(new TopicData().topic(t).partitions(new ArrayList<>(ps)));
                    }
                });
                byId.put(d.transactionalId(), new TransactionState().errorCode(d.error().code())
                        .transactionalId(d.transactionalId()).transactionState(d.state()).transactionTimeoutMs(d.timeoutMs())
                        .transactionStartTimeMs(d.startMs()).producerId(d.producerId())
                        .producerEpoch(d.producerEpoch()).topics(topics));
            }
            List<TransactionState> out = new ArrayList<>(request.transactionalIds().size());
            for (String id : request.transactionalIds()) {
                TransactionState s = byId.get(id);
                out.add(s != null ? s : new TransactionState().transactionalId(id)
                        .errorCode(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code()));
            }
            return new DescribeTransactionsResponse().transactionStates(out);
        }));
    }
}
