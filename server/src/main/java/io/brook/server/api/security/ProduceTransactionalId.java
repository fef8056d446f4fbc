package io.brook.server.api.security;

import io.brook.wire.message.ProduceRequest;
import io.brook.wire.message.ProduceRequest.PartitionProduceData;
import io.brook.wire.message.ProduceRequest.TopicProduceData;
import io.brook.wire.protocol.BufferRecords;
import io.brook.wire.protocol.Errors;
import io.brook.wire.record.RecordBatch;
import java.util.function.Predicate;

/**
 * The transactional id a Produce is refused for as a whole, as Kafka refuses it before looking
 * at any topic: a request holding transactional records must name the transactional id they
 * belong to, and its principal must be allowed to WRITE that id (checked only with an
 * authorizer). Without the first rule anyone allowed to write a topic could append batches
 * carrying another producer's id and epoch into that producer's open transaction.
 */
public final class ProduceTransactionalId {

    private ProduceTransactionalId() {
    }

    /**
     * TRANSACTIONAL_ID_AUTHORIZATION_FAILED when {@code request} holds transactional records
     * without a transactional id or with one {@code mayWrite} refuses (null: no authorizer), else null.
     */
    public static Errors refusal(ProduceRequest request, Predicate<String> mayWrite) {
        if (!hasTransactionalRecords(request)) {
            return null;
        }
        String id = request.transactionalId();
        return id == null || mayWrite != null && !mayWrite.test(id) ? Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED : null;
    }

    /** Whether any partition's records start with a transactional batch. */
    static boolean hasTransactionalRecords(ProduceRequest request) {
        for (TopicProduceData t : request.topicData()) {
            for (PartitionProduceData p : t.partitionData()) {
                if (p.records() instanceof BufferRecords records && RecordBatch.startsTransactional(records)) {
                    return true;
                }
            }
        }
        return false;
    }
}
