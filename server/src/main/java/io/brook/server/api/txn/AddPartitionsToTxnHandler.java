package io.brook.server.api.txn;

import io.brook.coordinator.txn.TransactionCoordinator;
import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.topic.Topic;
import io.brook.server.topic.TopicNames;
import io.brook.server.topic.Topics;
import io.brook.wire.message.AddPartitionsToTxnRequest;
import io.brook.wire.message.AddPartitionsToTxnRequest.AddPartitionsToTxnTopic;
import io.brook.wire.message.AddPartitionsToTxnRequest.AddPartitionsToTxnTransaction;
import io.brook.wire.message.AddPartitionsToTxnResponse;
import io.brook.wire.message.AddPartitionsToTxnResponse.AddPartitionsToTxnPartitionResult;
import io.brook.wire.message.AddPartitionsToTxnResponse.AddPartitionsToTxnResult;
import io.brook.wire.message.AddPartitionsToTxnResponse.AddPartitionsToTxnTopicResult;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

/**
 * AddPartitionsToTxn (key 24). v0–3 (what producers send): one transaction, its partitions added
 * once the change is durable. v4+ (what Kafka's partition leaders send): a batch of transactions,
 * each either added or, with {@code verify_only}, checked (NONE for a partition of the ongoing
 * transaction, INVALID_TXN_STATE otherwise).
 *
 * <p>As in Kafka, when a transaction names a partition this node does not host (an unknown topic,
 * a partition beyond the count) or an internal topic, nothing of it is added: those partitions get
 * UNKNOWN_TOPIC_OR_PARTITION (TOPIC_AUTHORIZATION_FAILED for internal topics) and the others
 * OPERATION_NOT_ATTEMPTED.
 */
public final class AddPartitionsToTxnHandler implements ApiHandler<AddPartitionsToTxnRequest> {

    /** The first version with a batch of transactions. */
    static final short BATCHED_VERSION = 4;

    private final BrokerContext broker;

    public AddPartitionsToTxnHandler(BrokerContext broker) {
        this.broker = broker;
    }

    @Override
    public void handle(RequestContext ctx, AddPartitionsToTxnRequest request) {
        short version = ctx.apiVersion();
        TransactionCoordinator coordinator = TxnRequests.coordinator(broker);
        if (version < BATCHED_VERSION) {
            ctx.respondWhenDone(one(coordinator, request.v3AndBelowTransactionalId(), request.v3AndBelowProducerId(),
                    request.v3AndBelowProducerEpoch(), false, request.v3AndBelowTopics(), version)
                    .thenApply(r -> new AddPartitionsToTxnResponse().resultsByTopicV3AndBelow(r.topicResults())));
            return;
        }
        List<CompletableFuture<AddPartitionsToTxnResult>> each = new ArrayList<>();
        for (AddPartitionsToTxnTransaction t : request.transactions()) {
            each.add(one(coordinator, t.transactionalId(), t.producerId(), t.producerEpoch(), t.verifyOnly(), t.topics(),
                    version));
        }
        ctx.respondWhenDone(CompletableFuture.allOf(each.toArray(new CompletableFuture<?>[0])).thenApply(v -> {
            List<AddPartitionsToTxnResult> results = new ArrayList<>(each.size());
            for (CompletableFuture<AddPartitionsToTxnResult> f : each) {
                results.add(f.join());
            }
            return new AddPartitionsToTxnResponse().errorCode(Errors.NONE.code()).resultsByTransaction(results);
        }));
    }

    private CompletableFuture<AddPartitionsToTxnResult> one(TransactionCoordinator coordinator, String id, long pid,
            short epoch, boolean verifyOnly, List<AddPartitionsToTxnTopic> topics, short version) {
        Map<String, Set<Integer>> wanted = new LinkedHashMap<>();
        Map<String, Map<Integer, Errors>> refused = new LinkedHashMap<>();
        Topics all = broker.topics();
        for (AddPartitionsToTxnTopic t : topics) {
            Topic topic = t.name() == null ? null : all.get(t.name());
            for (int p : t.partitions()) {
                if (topic == null || p < 0 || p >= topic.partitions()) {
                    refused.computeIfAbsent(t.name(), x -> new LinkedHashMap<>()).put(p, Errors.UNKNOWN_TOPIC_OR_PARTITION);
                } else if (topic.isInternal() && !(version >= BATCHED_VERSION && TopicNames.CONSUMER_OFFSETS.equals(t.name()))) {
                    // a group coordinator on another node verifies (or adds) a transactional offset
                    // commit's partition of __consumer_offsets with v4+, as Kafka's do
                    refused.computeIfAbsent(t.name(), x -> new LinkedHashMap<>()).put(p, Errors.TOPIC_AUTHORIZATION_FAILED);
                } else {
                    wanted.computeIfAbsent(t.name(), x -> new TreeSet<>()).add(p);
                }
            }
        }
        if (!refused.isEmpty()) {
            Map<String, Map<Integer, Errors>> out = new LinkedHashMap<>(refused);
            wanted.forEach((t, ps) -> {
                Map<Integer, Errors> m = out.computeIfAbsent(t, x -> new LinkedHashMap<>());
                for (int p : ps) {
                    m.put(p, Errors.OPERATION_NOT_ATTEMPTED);
                }
            });
            return CompletableFuture.completedFuture(result(id, out));
        }
        if (verifyOnly) {
            return coordinator.verifyPartitions(id, pid, epoch, wanted).thenApply(m -> result(id, m));
        }
        // v5 without verify_only is a partition leader adding for a producer on transactions V2
        short clientVersion = version >= 5 ? TransactionCoordinator.CLIENT_VERSION_V2 : 0;
        return coordinator.addPartitions(id, pid, epoch, wanted, clientVersion).thenApply(e -> {
            Errors error = TxnRequests.forVersion(e, version, 2);
            Map<String, Map<Integer, Errors>> out = new LinkedHashMap<>();
            wanted.forEach((t, ps) -> {
                Map<Integer, Errors> m = out.computeIfAbsent(t, x -> new LinkedHashMap<>());
                for (int p : ps) {
                    m.put(p, error);
                }
            });
            return result(id, out);
        });
    }

    private static AddPartitionsToTxnResult result(String id, Map<String, Map<Integer, Errors>> errors) {
        List<AddPartitionsToTxnTopicResult> topics = new ArrayList<>(errors.size());
        errors.forEach((t, ps) -> {
            List<AddPartitionsToTxnPartitionResult> parts = new ArrayList<>(ps.size());
            ps.forEach((p, e) -> parts.add(new AddPartitionsToTxnPartitionResult().partitionIndex(p)
                    .partitionErrorCode(e.code())));
            topics.add(new AddPartitionsToTxnTopicResult().name(t).resultsByPartition(parts));
        });
        return new AddPartitionsToTxnResult().transactionalId(id).topicResults(topics);
    }
}
