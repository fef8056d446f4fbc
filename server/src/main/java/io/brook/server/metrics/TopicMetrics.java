package io.brook.server.metrics;

import io.brook.wire.protocol.Errors;

/**
 * Kafka's {@code kafka.server:type=BrokerTopicMetrics} meters of one topic, or of all topics
 * together (no {@code topic} tag). Handlers mark a topic's object and the broker-wide one with the
 * same call ({@link #produced}, ...), which reads the clock once for all of them: per request and
 * partition, never per record, and without allocating (a meter is two striped {@code LongAdder}s, see {@link MeterAverages}).
 */
public final class TopicMetrics {

    static final String[] NAMES = {
        "MessagesInPerSec", "BytesInPerSec", "BytesOutPerSec", "BytesRejectedPerSec",
        "FailedProduceRequestsPerSec", "FailedFetchRequestsPerSec", "TotalProduceRequestsPerSec",
        "TotalFetchRequestsPerSec",
    };

    private final TopicMetrics all;
    final StampedMeter messagesIn;
    final StampedMeter bytesIn;
    final StampedMeter bytesOut;
    final StampedMeter bytesRejected;
    final StampedMeter failedProduce;
    final StampedMeter failedFetch;
    final StampedMeter totalProduce;
    final StampedMeter totalFetch;

    /** {@code all}: the broker-wide object this topic's marks also go to (null for that one itself). */
    TopicMetrics(StampedMeter[] meters, TopicMetrics all) {
        this.all = all;
        this.messagesIn = meters[0];
        this.bytesIn = meters[1];
        this.bytesOut = meters[2];
        this.bytesRejected = meters[3];
        this.failedProduce = meters[4];
        this.failedFetch = meters[5];
        this.totalProduce = meters[6];
        this.totalFetch = meters[7];
    }

    /** One partition of a produce request was appended: {@code records} in {@code bytes}. */
    public void produced(long records, long bytes) {
        produced(records, bytes, System.nanoTime());
    }

    private void produced(long records, long bytes, long now) {
        totalProduce.mark(1, now);
        messagesIn.mark(records, now);
        bytesIn.mark(bytes, now);
        if (all != null) {
            all.produced(records, bytes, now);
        }
    }

    /**
     * One partition of a produce request was refused with {@code error}. As in Kafka, only
     * failures a client cannot cause by itself count as failed requests: an unknown partition,
     * a batch too large, a corrupt one or a storage error do not; a batch larger than the topic
     * allows counts its {@code bytes} as rejected.
     */
    public void produceFailed(Errors error, long bytes) {
        totalProduce.mark();
        switch (error) {
            case MESSAGE_TOO_LARGE, RECORD_LIST_TOO_LARGE -> bytesRejected.mark(bytes);
            case UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER, CORRUPT_MESSAGE, KAFKA_STORAGE_ERROR,
                    UNKNOWN_TOPIC_ID, INCONSISTENT_TOPIC_ID -> { }
            default -> failedProduce.mark();
        }
        if (all != null) {
            all.produceFailed(error, bytes);
        }
    }

    /**
     * One partition of an answered fetch, with the record bytes it returned, or its error. As in
     * Kafka, the errors of an ordinary fetch (an unknown partition, an offset out of range, a
     * storage error, an unknown leader epoch...) are not failed requests.
     */
    public void fetched(long bytes, Errors error) {
        fetched(bytes, error, System.nanoTime());
    }

    private void fetched(long bytes, Errors error, long now) {
        totalFetch.mark(1, now);
        switch (error) {
            case NONE -> {
                if (bytes > 0) {
                    bytesOut.mark(bytes, now);
                }
            }
            case UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER, UNKNOWN_LEADER_EPOCH, FENCED_LEADER_EPOCH,
                    REPLICA_NOT_AVAILABLE, KAFKA_STORAGE_ERROR, INCONSISTENT_TOPIC_ID, UNKNOWN_TOPIC_ID,
                    OFFSET_OUT_OF_RANGE -> { }
            default -> failedFetch.mark();
        }
        if (all != null) {
            all.fetched(bytes, error, now);
        }
    }

    public long messagesIn() {
        return messagesIn.getCount();
    }

    public long bytesIn() {
        return bytesIn.getCount();
    }

    public long bytesOut() {
        return bytesOut.getCount();
    }
}
