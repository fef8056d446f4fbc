package io.brook.server.metrics;

import com.codahale.metrics.Meter;

/**
 * Kafka's {@code kafka.server:type=BrokerTopicMetrics} meters of one topic, or of all topics
 * together (no {@code topic} tag). Handlers mark a topic's object and the broker-wide one with the
 * same call ({@link #produced}, ...): per request and partition, never per record, and without
 * allocating (a Dropwizard meter is a few striped {@code LongAdder}s).
 */
public final class TopicMetrics {

    static final String[] NAMES = {
        "MessagesInPerSec", "BytesInPerSec", "BytesOutPerSec", "BytesRejectedPerSec",
        "FailedProduceRequestsPerSec", "FailedFetchRequestsPerSec", "TotalProduceRequestsPerSec",
        "TotalFetchRequestsPerSec",
    };

    private final TopicMetrics all;
    final Meter messagesIn;
    final Meter bytesIn;
    final Meter bytesOut;
    final Meter bytesRejected;
    final Meter failedProduce;
    final Meter failedFetch;
    final Meter totalProduce;
    final Meter totalFetch;

    /** {@code all}: the broker-wide object this topic's marks also go to (null for that one itself). */
    TopicMetrics(Meter[] meters, TopicMetrics all) {
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
        totalProduce.mark();
        messagesIn.mark(records);
        bytesIn.mark(bytes);
        if (all != null) {
            all.produced(records, bytes);
        }
    }

    /**
     * One partition of a produce request was refused; {@code rejectedBytes} are counted as
     * rejected (Kafka counts the batches it refuses for their size or validity).
     */
    public void produceFailed(long rejectedBytes) {
        totalProduce.mark();
        failedProduce.mark();
        if (rejectedBytes > 0) {
            bytesRejected.mark(rejectedBytes);
        }
        if (all != null) {
            all.produceFailed(rejectedBytes);
        }
    }

    /** One partition of an answered fetch, with the record bytes it returned, and whether it failed. */
    public void fetched(long bytes, boolean failed) {
        totalFetch.mark();
        if (failed) {
            failedFetch.mark();
        } else if (bytes > 0) {
            bytesOut.mark(bytes);
        }
        if (all != null) {
            all.fetched(bytes, failed);
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
