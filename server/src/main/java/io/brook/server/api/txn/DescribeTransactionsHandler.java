package io.brook.server.api.txn;

import io.brook.coordinator.txn.TxnDescription;
import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.wire.message.DescribeTransactionsRequest;
import io.brook.wire.message.DescribeTransactionsResponse;
import io.brook.wire.message.DescribeTransactionsResponse.TopicData;
import io.brook.wire.message.DescribeTransactionsResponse.TransactionState;
import java.util.ArrayList;
import java.util.List;

/** DescribeTransactions (key 65): state, producer, time-out, start and partitions of each transactional id. */
public final class DescribeTransactionsHandler implements ApiHandler<DescribeTransactionsRequest> {

    private final BrokerContext broker;

    public DescribeTransactionsHandler(BrokerContext broker) {
        this.broker = broker;
    }

    @Override
    public void handle(RequestContext ctx, DescribeTransactionsRequest request) {
        ctx.respondWhenDone(TxnRequests.coordinator(broker).describe(request.transactionalIds()).thenApply(list -> {
            List<TransactionState> out = new ArrayList<>(list.size());
            for (TxnDescription d : list) {
                List<TopicData> topics = new ArrayList<>();
                d.partitions().forEach((t, ps) -> topics.add(new TopicData().topic(t).partitions(new ArrayList<>(ps))));
                out.add(new TransactionState().errorCode(d.error().code()).transactionalId(d.transactionalId())
                        .transactionState(d.state()).transactionTimeoutMs(d.timeoutMs())
                        .transactionStartTimeMs(d.startMs()).producerId(d.producerId())
                        .producerEpoch(d.producerEpoch()).topics(topics));
            }
            return new DescribeTransactionsResponse().transactionStates(out);
        }));
    }
}
