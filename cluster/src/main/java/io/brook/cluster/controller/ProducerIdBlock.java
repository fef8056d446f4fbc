package io.brook.cluster.controller;

/** Producer ids {@code [firstId, firstId + size)}, given to one broker. */
public record ProducerIdBlock(int brokerId, long firstId, int size) {

    /** Kafka's block size (ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE). */
    public static final int SIZE = 1000;

    public long nextBlockFirstId() {
        return firstId + size;
    }
}
