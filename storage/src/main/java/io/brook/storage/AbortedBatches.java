package io.brook.storage;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which transactional batches of a range of the log belong to aborted transactions, for the
 * cleaner: their records are garbage (no read_committed consumer ever sees them), so they must
 * neither stay nor count as the newest record of their key, which would make compaction drop
 * the committed record they only seemed to supersede.
 *
 * <p>Built from the partition's aborted transactions ({@link TransactionIndex}); a producer's
 * transactions in one partition never overlap, so a batch of producer P starting at offset b is
 * aborted exactly when one of P's aborted transactions holds b in [first offset, marker offset).
 * Only batches below the last stable offset may be asked about: above it a transaction may still
 * be open, and not being aborted yet says nothing.
 */
final class AbortedBatches {

    /** Per producer: its aborted transactions by first offset. */
    private final Map<Long, TreeMap<Long, AbortedTransaction>> byProducer = new HashMap<>();

    AbortedBatches(List<AbortedTransaction> aborted) {
        for (AbortedTransaction t : aborted) {
            byProducer.computeIfAbsent(t.producerId(), id -> new TreeMap<>()).put(t.firstOffset(), t);
        }
    }

    /** Whether the transactional batch of {@code producerId} starting at {@code baseOffset} was aborted. */
    boolean contains(long producerId, long baseOffset) {
        TreeMap<Long, AbortedTransaction> ts = byProducer.get(producerId);
        Map.Entry<Long, AbortedTransaction> t = ts == null ? null : ts.floorEntry(baseOffset);
        return t != null && baseOffset < t.getValue().lastOffset();
    }
}
