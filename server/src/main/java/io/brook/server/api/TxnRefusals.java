package io.brook.server.api;

import io.brook.coordinator.txn.TransactionCoordinator;
import io.brook.wire.message.ProduceResponse.PartitionProduceResponse;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The transactional batches of one Produce request that the append path refused because their
 * partition is not part of an ongoing transaction of their producer, and the coordinator's word on
 * why. The append path checks synchronously, against the open transactions this node's
 * coordinator keeps by producer id, and learns only that the partition is not in one. Kafka's
 * partition leader asks the coordinator instead (AddPartitionsToTxn with {@code verify_only})
 * under the request's transactional id, and answers with the cause:
 *
 * <ul>
 *   <li>INVALID_PRODUCER_ID_MAPPING: the coordinator does not know the transactional id, or it
 *       belongs to another producer id;</li>
 *   <li>INVALID_PRODUCER_EPOCH: the producer was fenced by a newer epoch;</li>
 *   <li>the partition not added: TRANSACTION_ABORTABLE to Produce v11+, which the producer may
 *       abort and go on from, INVALID_TXN_STATE (fatal to it) to older versions;</li>
 *   <li>NOT_ENOUGH_REPLICAS, retriable, while the coordinator cannot tell (loading, a transaction
 *       being completed).</li>
 * </ul>
 *
 * So only a refused request asks; an accepted batch costs nothing more. Each refusal's error is
 * set before the returned future completes.
 */
final class TxnRefusals {

    /** Produce v11 is the first whose clients know TRANSACTION_ABORTABLE (KIP-890). */
    static final short TRANSACTION_ABORTABLE_MIN_VERSION = 11;

    private record Refusal(PartitionProduceResponse partition, String topic, int index, long producerId, short epoch) {
    }

    private final List<Refusal> refusals = new ArrayList<>(1);

    void add(PartitionProduceResponse partition, String topic, int index, long producerId, short epoch) {
        refusals.add(new Refusal(partition, topic, index, producerId, epoch));
    }

    /** Asks the coordinator about every refusal; completes once each has its error (never exceptionally). */
    CompletableFuture<Void> explain(TransactionCoordinator txns, String transactionalId, short version) {
        CompletableFuture<?>[] each = new CompletableFuture<?>[refusals.size()];
        for (int i = 0; i < each.length; i++) {
            Refusal r = refusals.get(i);
            each[i] = txns.verifyPartitions(transactionalId, r.producerId(), r.epoch(), Map.of(r.topic(), Set.of(r.index())))
                    .handle((answer, failure) -> {
                        Errors coordinator = failure != null ? null
                                : answer.getOrDefault(r.topic(), Map.of()).get(r.index());
                        Errors e = forVerification(coordinator, version);
                        r.partition().errorCode(e.code()).errorMessage(message(e, transactionalId, r));
                        return null;
                    });
        }
        return CompletableFuture.allOf(each);
    }

    /**
     * The produce error for a partition the coordinator was asked to verify: its answer mapped as
     * Kafka maps it, a partition not in the transaction by the request's version. An answer of
     * NONE (the partition was added after the append path looked) or none at all still refuses.
     */
    static Errors forVerification(Errors coordinator, short version) {
        Errors e = coordinator == null || coordinator == Errors.NONE ? Errors.INVALID_TXN_STATE
                : ImplicitTxnPartitions.forProduce(coordinator);
        return e == Errors.INVALID_TXN_STATE && version >= TRANSACTION_ABORTABLE_MIN_VERSION
                ? Errors.TRANSACTION_ABORTABLE : e;
    }

    private static String message(Errors e, String transactionalId, Refusal r) {
        return switch (e) {
            case INVALID_PRODUCER_ID_MAPPING -> "The transaction coordinator has no transactional id " + transactionalId
                    + " for producer " + r.producerId() + ".";
            case INVALID_PRODUCER_EPOCH -> "Producer " + r.producerId() + " epoch " + r.epoch()
                    + " has been fenced by a newer epoch.";
            case NOT_ENOUGH_REPLICAS -> "The transaction coordinator cannot verify the transaction now.";
            default -> "Producer " + r.producerId() + " epoch " + r.epoch()
                    + " has no ongoing transaction that this partition was added to.";
        };
    }
}
