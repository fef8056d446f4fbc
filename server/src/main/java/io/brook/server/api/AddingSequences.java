package io.brook.server.api;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The lowest sequence of a transactions V2 producer's batches that tried to add a partition to its
 * transaction (Kafka's verification state: {@code VerificationStateEntry.lowestSequence}). A batch
 * with a higher sequence must not add the partition and be appended first: the lower one, refused
 * with a retriable error or still on its way, would then be refused for good on its retry. Such a
 * batch is answered OUT_OF_ORDER_SEQUENCE_NUMBER instead, which the producer retries while the
 * batch before it is unacknowledged.
 *
 * <p>An entry lives until a transactional batch of the producer is appended to its partition (as
 * Kafka clears its verification state when the append starts the transaction in the partition),
 * not merely until the partition is added: a batch that added the partition but whose append
 * failed keeps the later ones out until its retry is appended. It is also dropped when the
 * transactional id shows up with another producer id or epoch; at most {@link #MAX_IDS}
 * transactional ids are remembered (the eldest is forgotten, as Kafka's entries expire).
 * Thread-safe; the requests of one transactional id come in order ({@link TxnProduceOrder}).
 */
final class AddingSequences {

    static final int MAX_IDS = 10_000;

    private record Owner(long producerId, short epoch) {
    }

    private record Entry(Owner owner, Map<ImplicitTxnPartitions.TopicPartition, Integer> lowest) {
    }

    private final Map<String, Entry> byId = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Entry> eldest) {
            return size() > MAX_IDS;
        }
    };

    /**
     * Records that the batch at {@code sequence} tries to add {@code tp}.
     *
     * @return false when a batch with a lower sequence tried before (this one must wait)
     */
    synchronized boolean tryAdd(String transactionalId, long producerId, short epoch,
            ImplicitTxnPartitions.TopicPartition tp, int sequence) {
        Owner owner = new Owner(producerId, epoch);
        Entry e = byId.get(transactionalId);
        if (e == null || !e.owner().equals(owner)) {
            e = new Entry(owner, new HashMap<>());
            byId.put(transactionalId, e);
        }
        Integer lowest = e.lowest().get(tp);
        if (lowest != null && sequence > lowest) {
            return false;
        }
        e.lowest().put(tp, sequence);
        return true;
    }

    /**
     * Whether the batch at {@code sequence} may be appended to {@code tp}, a partition already in
     * the producer's transaction: false when a batch with a lower sequence tried to add it and has
     * not been appended yet (this one must wait for it). Lowers the remembered sequence otherwise.
     */
    synchronized boolean mayAppend(String transactionalId, long producerId, short epoch,
            ImplicitTxnPartitions.TopicPartition tp, int sequence) {
        Entry e = byId.get(transactionalId);
        if (e == null || !e.owner().equals(new Owner(producerId, epoch))) {
            return true;
        }
        Integer lowest = e.lowest().get(tp);
        if (lowest == null) {
            return true;
        }
        if (sequence > lowest) {
            return false;
        }
        e.lowest().put(tp, sequence);
        return true;
    }

    /** A transactional batch was appended to {@code tp}: its transaction is open there, nothing needs remembering. */
    synchronized void appended(String transactionalId, ImplicitTxnPartitions.TopicPartition tp) {
        Entry e = byId.get(transactionalId);
        if (e != null && e.lowest().remove(tp) != null && e.lowest().isEmpty()) {
            byId.remove(transactionalId);
        }
    }
}
