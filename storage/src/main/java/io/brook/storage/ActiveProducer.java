package io.brook.storage;

/**
 * One producer whose state a partition holds, as DescribeProducers shows it.
 *
 * @param producerId            the producer id
 * @param producerEpoch         its current epoch in this partition
 * @param lastSequence          the last sequence number appended, or -1
 * @param lastTimestamp         the timestamp of its last batch, or -1
 * @param coordinatorEpoch      the coordinator epoch of the last transaction marker written here for
 *                              it, or -1 before any
 * @param currentTxnStartOffset the first offset of its open transaction here, or -1
 */
public record ActiveProducer(long producerId, short producerEpoch, int lastSequence, long lastTimestamp,
                             int coordinatorEpoch, long currentTxnStartOffset) {
}
