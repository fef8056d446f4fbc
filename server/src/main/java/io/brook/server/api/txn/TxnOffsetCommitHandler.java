package io.brook.server.api.txn;

import io.brook.coordinator.group.GroupCoordinator;
import io.brook.coordinator.txn.TransactionCoordinator;
import io.brook.server.node.TxnPeers;
import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.topic.Topic;
import io.brook.server.topic.TopicIds;
import io.brook.server.topic.TopicNames;
import io.brook.server.topic.Topics;
import io.brook.wire.message.TxnOffsetCommitRequest;
import io.brook.wire.message.TxnOffsetCommitRequest.TxnOffsetCommitRequestPartition;
import io.brook.wire.message.TxnOffsetCommitRequest.TxnOffsetCommitRequestTopic;
import io.brook.wire.message.TxnOffsetCommitResponse;
import io.brook.wire.message.TxnOffsetCommitResponse.TxnOffsetCommitResponsePartition;
import io.brook.wire.message.TxnOffsetCommitResponse.TxnOffsetCommitResponseTopic;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * TxnOffsetCommit (key 28): the offsets of a consume-transform-produce transaction, handed to the
 * group coordinator, which checks the group metadata of KIP-447 (generation, member id, instance
 * id) and holds them until the transaction ends. The producer must have added the group's
 * offsets partition to its ongoing transaction first ({@link #verify}); from v5 (transactions V2)
 * it sends no AddOffsetsToTxn, and that partition is added here before the offsets are handed on. Partitions this node does not host get
 * UNKNOWN_TOPIC_OR_PARTITION (UNKNOWN_TOPIC_ID for an unknown id in v6, where topics are named by
 * id) without reaching the coordinator.
 */
public final class TxnOffsetCommitHandler implements ApiHandler<TxnOffsetCommitRequest> {

    /** The first version that names topics by id. */
    static final short TOPIC_IDS_MIN_VERSION = 6;

    /** The first version of transactions V2 (KIP-890 part 2): the offsets partition is added implicitly. */
    static final short V2_MIN_VERSION = 5;

    /** The first version whose clients know TRANSACTION_ABORTABLE. */
    static final short ABORTABLE_MIN_VERSION = 4;

    private final BrokerContext broker;

    public TxnOffsetCommitHandler(BrokerContext broker) {
        this.broker = broker;
    }

    @Override
    public void handle(RequestContext ctx, TxnOffsetCommitRequest request) {
        short version = ctx.apiVersion();
        Topics topics = broker.topics();
        boolean byId = version >= TOPIC_IDS_MIN_VERSION;
        Map<String, UUID> ids = new HashMap<>();
        if (byId) {
            for (TxnOffsetCommitRequestTopic t : request.topics()) {
                t.name(TopicIds.nameOf(topics, t.topicId()));
                ids.put(t.name(), t.topicId());
            }
        }
        List<TxnOffsetCommitResponseTopic> unknown = new ArrayList<>();
        List<TxnOffsetCommitRequestTopic> known = new ArrayList<>();
        for (TxnOffsetCommitRequestTopic t : request.topics()) {
            Topic topic = t.name() == null ? null : topics.get(t.name());
            List<TxnOffsetCommitRequestPartition> keep = new ArrayList<>();
            List<TxnOffsetCommitResponsePartition> refused = new ArrayList<>();
            for (TxnOffsetCommitRequestPartition p : t.partitions()) {
                if (topic != null && p.partitionIndex() >= 0 && p.partitionIndex() < topic.partitions()) {
                    keep.add(p);
                } else {
                    Errors e = byId && TopicIds.isPlaceholder(t.name()) ? Errors.UNKNOWN_TOPIC_ID
                            : Errors.UNKNOWN_TOPIC_OR_PARTITION;
                    refused.add(new TxnOffsetCommitResponsePartition().partitionIndex(p.partitionIndex()).errorCode(e.code()));
                }
            }
            if (!keep.isEmpty()) {
                known.add(new TxnOffsetCommitRequestTopic().name(t.name()).topicId(t.topicId()).partitions(keep));
            }
            if (!refused.isEmpty()) {
                unknown.add(new TxnOffsetCommitResponseTopic().name(t.name()).partitions(refused));
            }
        }
        GroupCoordinator groups = broker.groups();
        if (known.isEmpty() || groups == null) {
            Errors e = Errors.COORDINATOR_NOT_AVAILABLE;
            if (groups == null) {
                for (TxnOffsetCommitRequestTopic t : known) {
                    List<TxnOffsetCommitResponsePartition> parts = new ArrayList<>();
                    for (TxnOffsetCommitRequestPartition p : t.partitions()) {
                        parts.add(new TxnOffsetCommitResponsePartition().partitionIndex(p.partitionIndex()).errorCode(e.code()));
                    }
                    unknown.add(new TxnOffsetCommitResponseTopic().name(t.name()).partitions(parts));
                }
            }
            ctx.respond(withIds(new TxnOffsetCommitResponse().topics(unknown), byId ? ids : null));
            return;
        }
        TxnPeers peers = broker.cluster() == null ? null : broker.cluster().txnPeers();
        if (peers != null && request.groupId() != null && !request.groupId().isEmpty()
                && peers.coordinatorOf(request.transactionalId()) != peers.nodeId()) {
            // the transaction's coordinator is another node (or none now): asked through it, as
            // Kafka's group coordinator asks (docs/cluster.md, section 7)
            int coordinator = peers.coordinatorOf(request.transactionalId());
            Map<String, Set<Integer>> offsets = Map.of(TopicNames.CONSUMER_OFFSETS, Set.of(groups.partitionFor(request.groupId())));
            CompletableFuture<Map<String, Map<Integer, Errors>>> asked = coordinator < 0
                    ? CompletableFuture.failedFuture(new IllegalStateException("no transaction coordinator now"))
                    : peers.addPartitions(coordinator, request.transactionalId(), request.producerId(),
                            request.producerEpoch(), version < V2_MIN_VERSION, offsets);
            asked.whenComplete((m, x) -> ctx.nonBlockingExecutor().execute(() -> {
                Errors e = x != null ? null : m.getOrDefault(TopicNames.CONSUMER_OFFSETS, Map.of())
                        .get(groups.partitionFor(request.groupId()));
                commit(ctx, request, version, groups, known, unknown, byId ? ids : null,
                        e == null ? forVersion(Errors.COORDINATOR_NOT_AVAILABLE, version) : refusal(e, version));
            }));
            return;
        }
        TransactionCoordinator txns = broker.transactions();
        if (version >= V2_MIN_VERSION && txns != null && request.groupId() != null && !request.groupId().isEmpty()
                && verify(request, groups) != Errors.NONE) {
            // transactions V2: the group's offsets partition is added here, not by AddOffsetsToTxn
            Map<String, Set<Integer>> offsets = Map.of(TopicNames.CONSUMER_OFFSETS, Set.of(groups.partitionFor(request.groupId())));
            txns.addPartitions(request.transactionalId(), request.producerId(), request.producerEpoch(), offsets,
                    TransactionCoordinator.CLIENT_VERSION_V2).whenComplete((e, x) -> ctx.nonBlockingExecutor().execute(() ->
                    commit(ctx, request, version, groups, known, unknown, byId ? ids : null,
                            forVersion(x != null ? Errors.COORDINATOR_NOT_AVAILABLE : forOffsetCommit(e), version))));
            return;
        }
        Errors local = verify(request, groups);
        if (local == Errors.INVALID_TXN_STATE) {
            // not in an open transaction of this producer: the coordinator says why (an id it does
            // not know or that another producer holds, an ending transaction, or the offsets
            // partition not added), as it does when a node asks it for another node's group
            int offsetsPartition = groups.partitionFor(request.groupId());
            txns.verifyPartitions(request.transactionalId(), request.producerId(), request.producerEpoch(),
                    Map.of(TopicNames.CONSUMER_OFFSETS, Set.of(offsetsPartition)))
                    .whenComplete((m, x) -> ctx.nonBlockingExecutor().execute(() -> {
                        Errors e = x != null ? null : m.getOrDefault(TopicNames.CONSUMER_OFFSETS, Map.of())
                                .get(offsetsPartition);
                        commit(ctx, request, version, groups, known, unknown, byId ? ids : null,
                                refusal(e == null ? local : e, version));
                    }));
            return;
        }
        commit(ctx, request, version, groups, known, unknown, byId ? ids : null, forVersion(local, version));
    }

    /**
     * The coordinator's answer to a verification (or, from v5, an addition) as TxnOffsetCommit
     * reports it: Kafka's mapping ({@link #forOffsetCommit}), and from v4 TRANSACTION_ABORTABLE
     * for an offsets partition not in the transaction, which the producer may abort and go on
     * from (older clients know only INVALID_TXN_STATE, which is fatal to them).
     */
    static Errors refusal(Errors coordinator, short version) {
        Errors e = forOffsetCommit(coordinator);
        if (e == Errors.INVALID_TXN_STATE && version >= ABORTABLE_MIN_VERSION && version < V2_MIN_VERSION) {
            e = Errors.TRANSACTION_ABORTABLE;
        }
        return forVersion(e, version);
    }

    /** The coordinator's answer to the implicit addition as TxnOffsetCommit reports it (retriable while busy). */
    static Errors forOffsetCommit(Errors e) {
        return switch (e) {
            case PRODUCER_FENCED -> Errors.INVALID_PRODUCER_EPOCH;
            case CONCURRENT_TRANSACTIONS, REQUEST_TIMED_OUT -> Errors.COORDINATOR_LOAD_IN_PROGRESS;
            default -> e;
        };
    }

    /** Hands the offsets to the group coordinator, unless {@code verified} refuses them all. */
    private void commit(RequestContext ctx, TxnOffsetCommitRequest request, short version, GroupCoordinator groups,
            List<TxnOffsetCommitRequestTopic> known, List<TxnOffsetCommitResponseTopic> unknown, Map<String, UUID> ids,
            Errors verified) {
        if (verified != Errors.NONE) {
            for (TxnOffsetCommitRequestTopic t : known) {
                List<TxnOffsetCommitResponsePartition> parts = new ArrayList<>();
                for (TxnOffsetCommitRequestPartition p : t.partitions()) {
                    parts.add(new TxnOffsetCommitResponsePartition().partitionIndex(p.partitionIndex())
                            .errorCode(verified.code()));
                }
                unknown.add(new TxnOffsetCommitResponseTopic().name(t.name()).partitions(parts));
            }
            ctx.respond(withIds(new TxnOffsetCommitResponse().topics(unknown), ids));
            return;
        }
        request.topics(known); // the coordinator reads the request only after this point
        ctx.respondWhenDone(groups.txnOffsetCommit(request, version).thenApply(r -> {
            for (TxnOffsetCommitResponseTopic t : r.topics()) {
                for (TxnOffsetCommitResponsePartition p : t.partitions()) {
                    p.errorCode(forVersion(Errors.forCode(p.errorCode()), version).code());
                }
            }
            List<TxnOffsetCommitResponseTopic> all = new ArrayList<>(r.topics());
            all.addAll(unknown);
            return withIds(r.topics(all), ids);
        }));
    }

    /**
     * The producer must have added the group's {@code __consumer_offsets} partition to its ongoing
     * transaction (AddOffsetsToTxn) at this epoch: offsets of any other producer would never be
     * completed by a marker. INVALID_PRODUCER_EPOCH for a fenced producer, INVALID_TXN_STATE
     * otherwise (the verification of KIP-890 part 1, asked of the local coordinator).
     */
    private Errors verify(TxnOffsetCommitRequest request, GroupCoordinator groups) {
        if (request.groupId() == null || request.groupId().isEmpty()) {
            return Errors.NONE; // the group coordinator answers INVALID_GROUP_ID
        }
        TransactionCoordinator txns = broker.transactions();
        if (txns == null) {
            return Errors.COORDINATOR_NOT_AVAILABLE;
        }
        Errors e = txns.verifyAppend(request.producerId(), request.producerEpoch(), TopicNames.CONSUMER_OFFSETS,
                groups.partitionFor(request.groupId()));
        // while __transaction_state loads, the producer may be one not loaded yet: retriable
        return e != Errors.NONE && txns.loading() ? Errors.COORDINATOR_LOAD_IN_PROGRESS : e;
    }

    /**
     * As Kafka: clients before 2.0 (TxnOffsetCommit v0-1) do not know COORDINATOR_LOAD_IN_PROGRESS
     * here and get COORDINATOR_NOT_AVAILABLE, retriable for them too.
     */
    private static Errors forVersion(Errors e, short version) {
        return version < 2 && e == Errors.COORDINATOR_LOAD_IN_PROGRESS ? Errors.COORDINATOR_NOT_AVAILABLE : e;
    }

    private static TxnOffsetCommitResponse withIds(TxnOffsetCommitResponse response, Map<String, UUID> ids) {
        if (ids != null) {
            for (TxnOffsetCommitResponseTopic t : response.topics()) {
                t.topicId(ids.getOrDefault(t.name(), TopicIds.ZERO));
            }
        }
        return response;
    }
}
