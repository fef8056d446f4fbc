package io.brook.coordinator.txn;

import java.util.concurrent.ConcurrentHashMap;

/**
 * What the partition side may ask of the coordinator without a round trip: for each producer id,
 * its current epoch and, while its transaction is Ongoing, the partitions added to it. Kept up to
 * date by the owner thread after each durable change; read from any thread (a produce handler
 * checks that a transactional batch belongs to a partition of an ongoing transaction of its
 * producer at its epoch, the verification of KIP-890 part 1 done locally on a single node).
 */
final class OpenTransactions {

    private final ConcurrentHashMap<Long, TxnSnapshot> byProducer = new ConcurrentHashMap<>();

    void update(TxnSnapshot s) {
        byProducer.put(s.producerId(), s);
    }

    void remove(long producerId) {
        byProducer.remove(producerId);
    }

    /** Whether {@code topic}-{@code partition} is part of the ongoing transaction of this producer and epoch. */
    boolean contains(long producerId, short epoch, String topic, int partition) {
        TxnSnapshot s = byProducer.get(producerId);
        return s != null && s.producerEpoch() == epoch && s.state() == TxnState.ONGOING && s.contains(topic, partition);
    }

    /** Whether this producer id has moved on to a newer epoch than {@code epoch}. */
    boolean isFenced(long producerId, short epoch) {
        TxnSnapshot s = byProducer.get(producerId);
        return s != null && s.producerEpoch() > epoch;
    }
}
