package io.brook.server.api.txn;

import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.security.Acl;
import io.brook.server.security.Authorizer;
import io.brook.server.topic.Topic;
import io.brook.storage.ActiveProducer;
import io.brook.storage.Log;
import io.brook.wire.message.DescribeProducersRequest;
import io.brook.wire.message.DescribeProducersRequest.TopicRequest;
import io.brook.wire.message.DescribeProducersResponse;
import io.brook.wire.message.DescribeProducersResponse.PartitionResponse;
import io.brook.wire.message.DescribeProducersResponse.ProducerState;
import io.brook.wire.message.DescribeProducersResponse.TopicResponse;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.List;

/**
 * DescribeProducers (key 61): the producers whose state each partition holds, with the first
 * offset of an open transaction ({@code kafka-transactions.sh describe-producers} and
 * {@code find-hanging}). The coordinator epoch is 0: the one coordinator of this node writes its
 * markers with epoch 0. With ACLs, as in Kafka, the partitions of a topic the client may not
 * READ are answered TOPIC_AUTHORIZATION_FAILED.
 */
public final class DescribeProducersHandler implements ApiHandler<DescribeProducersRequest> {

    private final BrokerContext broker;
    private final Authorizer authorizer;

    /** Over {@code broker}'s partitions; {@code authorizer} null or disabled: no ACLs. */
    public DescribeProducersHandler(BrokerContext broker, Authorizer authorizer) {
        this.broker = broker;
        this.authorizer = authorizer != null && authorizer.enabled() ? authorizer : null;
    }

    @Override
    public void handle(RequestContext ctx, DescribeProducersRequest request) {
        List<TopicResponse> topics = new ArrayList<>(request.topics().size());
        for (TopicRequest t : request.topics()) {
            Topic topic = t.name() == null ? null : broker.topics().get(t.name());
            List<PartitionResponse> parts = new ArrayList<>(t.partitionIndexes().size());
            boolean denied = !TxnRequests.may(authorizer, ctx, Acl.READ, Acl.TOPIC, t.name());
            for (int p : t.partitionIndexes()) {
                PartitionResponse r = new PartitionResponse().partitionIndex(p);
                if (denied) {
                    parts.add(r.errorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code()));
                    continue;
                }
                Log log = topic == null || p < 0 || p >= topic.partitions() ? null : broker.topics().log(t.name(), p);
                Errors lead = topic == null || p < 0 || p >= topic.partitions() ? Errors.NONE
                        : broker.leadership().check(t.name(), p, -1);
                if (lead != Errors.NONE) {
                    parts.add(r.errorCode(lead.code()));
                    continue;
                }
                if (log == null) {
                    parts.add(r.errorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()));
                    continue;
                }
                List<ProducerState> producers = new ArrayList<>();
                for (ActiveProducer a : log.activeProducers()) {
                    producers.add(new ProducerState().producerId(a.producerId()).producerEpoch(a.producerEpoch())
                            .lastSequence(a.lastSequence()).lastTimestamp(a.lastTimestamp()).coordinatorEpoch(a.coordinatorEpoch())
                            .currentTxnStartOffset(a.currentTxnStartOffset()));
                }
                parts.add(r.errorCode(Errors.NONE.code()).activeProducers(producers));
            }
            topics.add(new TopicResponse().name(t.name()).partitions(parts));
        }
        ctx.respond(new DescribeProducersResponse().topics(topics));
    }
}
