package io.brook.server.api;

import io.brook.server.topic.Topic;
import io.brook.server.topic.Topics;
import io.brook.wire.message.ProduceRequest.PartitionProduceData;
import io.brook.wire.message.ProduceRequest.TopicProduceData;
import io.brook.wire.protocol.BufferRecords;
import io.brook.wire.protocol.Errors;
import io.brook.wire.record.RecordBatch;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

/**
 * Transactions V2 (KIP-890 part 2) on the partition side of a Produce: a producer running V2 sends
 * no AddPartitionsToTxn, so before its transactional batches are appended the partitions not yet
 * part of its ongoing transaction are added by this node, with the call Kafka's partition leaders
 * make to the transaction coordinator (AddPartitionsToTxn v5, not verify-only). Produce v12 is the
 * first version a V2 producer sends; older versions are only verified (KIP-890 part 1).
 *
 * <p>A partition that could not be added is answered with the error Kafka's produce path gives:
 * INVALID_PRODUCER_EPOCH for a fenced producer; NOT_ENOUGH_REPLICAS, which producers retry, while
 * the coordinator is busy with the transaction (CONCURRENT_TRANSACTIONS: the end of the previous
 * transaction is still being written), loading or unavailable; the coordinator's error otherwise
 * (INVALID_PRODUCER_ID_MAPPING, INVALID_TXN_STATE).
 *
 * <p>A batch whose sequence is above that of an earlier batch that tried to add the same partition
 * ({@link AddingSequences}; refused with a retriable error or still on its way) is answered
 * OUT_OF_ORDER_SEQUENCE_NUMBER without adding it, which the producer retries while the batch
 * before it is unacknowledged, as Kafka's verification does. Otherwise the later batch could be
 * appended first and the retry of the earlier one be refused for good.
 * {@link TxnProduceOrder} keeps a producer's requests from overtaking one that waits here.
 *
 * <p>Stateless (the sequences are the caller's); any thread. The returned future completes on the
 * coordinator's thread.
 */
final class ImplicitTxnPartitions {

    /** The first Produce version of transactions V2. */
    static final short PRODUCE_V2_MIN_VERSION = 12;

    private ImplicitTxnPartitions() {
    }

    /** One partition of the request. */
    record TopicPartition(String topic, int partition) {
    }

    private record ProducerEpoch(long producerId, short epoch) {
    }

    /**
     * Adds (or verifies, as {@code txns} does) the partitions of {@code topicData} whose
     * transactional batch is not yet part of its producer's ongoing transaction; null when there is
     * nothing to ask (then nothing waits).
     *
     * @return completes with the partitions asked about: NONE for those now in the transaction,
     *         else the error to answer them with
     */
    static CompletableFuture<Map<TopicPartition, Errors>> addMissing(TxnPartitionAccess txns, String transactionalId,
            List<TopicProduceData> topicData, Topics topics, AddingSequences sequences) {
        Map<ProducerEpoch, Map<String, Set<Integer>>> missing = new LinkedHashMap<>();
        Map<TopicPartition, Errors> outOfOrder = new HashMap<>();
        RecordBatch batch = new RecordBatch();
        for (TopicProduceData td : topicData) {
            Topic topic = td.name() == null ? null : topics.get(td.name());
            if (topic == null || topic.isInternal()) {
                continue; // refused by the produce path itself
            }
            for (PartitionProduceData pd : td.partitionData()) {
                if (pd.index() < 0 || pd.index() >= topic.partitions()
                        || !(pd.records() instanceof BufferRecords records)) {
                    continue;
                }
                ByteBuffer buf = records.buffer();
                if (buf.remaining() < RecordBatch.HEADER_SIZE) {
                    continue;
                }
                batch.wrap(buf, buf.position());
                if (!batch.isTransactional()) {
                    continue;
                }
                TopicPartition tp = new TopicPartition(td.name(), pd.index());
                if (txns.inTransaction(batch.producerId(), batch.producerEpoch(), td.name(), pd.index())) {
                    if (!sequences.mayAppend(transactionalId, batch.producerId(), batch.producerEpoch(), tp,
                            batch.baseSequence())) {
                        // added by a batch before this one that has not been appended yet
                        outOfOrder.put(tp, Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
                    }
                    continue;
                }
                if (!sequences.tryAdd(transactionalId, batch.producerId(), batch.producerEpoch(), tp, batch.baseSequence())
                        && !txns.fenced(batch.producerId(), batch.producerEpoch(), td.name(), pd.index())) {
                    // a batch before this one tried to add the partition and has not been
                    // appended yet: the producer retries this one after it
                    outOfOrder.put(tp, Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
                    continue;
                }
                missing.computeIfAbsent(new ProducerEpoch(batch.producerId(), batch.producerEpoch()), k -> new HashMap<>())
                        .computeIfAbsent(td.name(), k -> new TreeSet<>()).add(pd.index());
            }
        }
        if (missing.isEmpty()) {
            return outOfOrder.isEmpty() ? null : CompletableFuture.completedFuture(outOfOrder);
        }
        List<CompletableFuture<Map<TopicPartition, Errors>>> each = new ArrayList<>(missing.size());
        for (Map.Entry<ProducerEpoch, Map<String, Set<Integer>>> m : missing.entrySet()) {
            ProducerEpoch pe = m.getKey();
            each.add(txns.add(transactionalId, pe.producerId(), pe.epoch(), m.getValue()).handle((errors, x) -> {
                Map<TopicPartition, Errors> answered = new HashMap<>();
                m.getValue().forEach((t, ps) -> ps.forEach(p -> {
                    Errors e = x != null ? null : errors.getOrDefault(t, Map.of()).get(p);
                    answered.put(new TopicPartition(t, p), e == null ? Errors.NOT_ENOUGH_REPLICAS : forProduce(e));
                }));
                return answered;
            }));
        }
        return CompletableFuture.allOf(each.toArray(new CompletableFuture<?>[0])).thenApply(v -> {
            Map<TopicPartition, Errors> all = new HashMap<>(outOfOrder);
            each.forEach(f -> all.putAll(f.join()));
            return all;
        });
    }

    /** The coordinator's answer as Kafka's produce path reports it. */
    static Errors forProduce(Errors e) {
        return switch (e) {
            case PRODUCER_FENCED -> Errors.INVALID_PRODUCER_EPOCH;
            case CONCURRENT_TRANSACTIONS, COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR,
                 REQUEST_TIMED_OUT -> Errors.NOT_ENOUGH_REPLICAS;
            default -> e;
        };
    }
}
