package io.brook.storage;

/**
 * What one partition remembers about one idempotent producer: its current epoch, the sequence
 * ranges and offsets of its last {@link #RETAINED_BATCHES} batches (the duplicate window that
 * matches the Java client's five in-flight requests), the first offset of its open transaction,
 * and the coordinator epoch of its last transaction marker. Mutated only under the owning log's
 * lock.
 */
final class ProducerStateEntry {
    static final int RETAINED_BATCHES = 5;

    final long producerId;
    short epoch;
    /** Ring of batch metadata, oldest first from {@code head}. */
    final int[] firstSeq = new int[RETAINED_BATCHES];
    final int[] lastSeq = new int[RETAINED_BATCHES];
    final long[] firstOffset = new long[RETAINED_BATCHES];
    final long[] lastOffset = new long[RETAINED_BATCHES];
    final long[] timestamp = new long[RETAINED_BATCHES];
    int head;
    int size;
    long lastTimestamp = -1L;
    /** First offset of the producer's open transaction in this partition, or -1. */
    long currentTxnFirstOffset = -1L;
    /** The coordinator epoch in the last COMMIT or ABORT marker of this producer here, or -1. */
    int coordinatorEpoch = -1;

    ProducerStateEntry(long producerId, short epoch) {
        this.producerId = producerId;
        this.epoch = epoch;
    }

    boolean isEmpty() {
        return size == 0;
    }

    int lastSeq() {
        return size == 0 ? -1 : lastSeq[(head + size - 1) % RETAINED_BATCHES];
    }

    long lastDataOffset() {
        return size == 0 ? -1L : lastOffset[(head + size - 1) % RETAINED_BATCHES];
    }

    /** Index into the ring of a retained batch with exactly these sequences, or -1. */
    int findDuplicate(int first, int last) {
        for (int i = 0; i < size; i++) {
            int j = (head + i) % RETAINED_BATCHES;
            if (firstSeq[j] == first && lastSeq[j] == last) {
                return j;
            }
        }
        return -1;
    }

    void addBatch(short batchEpoch, int first, int last, long baseOffset, long lastOff, long ts) {
        if (batchEpoch != epoch) {
            epoch = batchEpoch;
            head = 0;
            size = 0;
        }
        int j;
        if (size == RETAINED_BATCHES) {
            j = head;
            head = (head + 1) % RETAINED_BATCHES;
        } else {
            j = (head + size) % RETAINED_BATCHES;
            size++;
        }
        firstSeq[j] = first;
        lastSeq[j] = last;
        firstOffset[j] = baseOffset;
        lastOffset[j] = lastOff;
        timestamp[j] = ts;
        lastTimestamp = ts;
    }
}
