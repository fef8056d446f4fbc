package io.brook.server;

import io.brook.server.metrics.BrokerMetrics;
import io.brook.server.metrics.TopicMetrics;
import io.brook.storage.FlushObserver;
import io.brook.wire.message.FetchResponse;
import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.Errors;
import io.brook.wire.protocol.Records;
import io.brook.wire.record.RecordBatch;

/**
 * The metric recordings of the broker's hot path, on metrics of their own outside a broker: for
 * benchmarks that measure what recording costs per request (bench's
 * {@code MetricsRecordingBenchmark}), not for production. The calls are those the broker makes,
 * into the same classes:
 *
 * <ul>
 *   <li>{@link #produced}: what {@code ProduceHandler.meter} records for an appended partition of
 *       an existing topic (the topic's BrokerTopicMetrics, found by name, and all topics');</li>
 *   <li>{@link #fetched}: what {@code FetchPass.meter} records for a partition of an answered
 *       fetch;</li>
 *   <li>{@link #answered}: the request metrics the network layer's {@code RequestObserver} records
 *       once an answer is written ({@code BrokerMetrics.requestAnswered});</li>
 *   <li>{@link #forced}: the group commit's {@code FlushObserver}, once per force.</li>
 * </ul>
 *
 * Built with {@code recording} false, every call does what a broker built with
 * {@code Brook.Builder.metricsRecording(false)} does. Keep the calls in step with the handlers.
 */
public final class HotPathMetrics {

    private final BrokerMetrics metrics;
    private final FlushObserver flushes;

    public HotPathMetrics(boolean recording) {
        this.metrics = new BrokerMetrics(false, recording);
        this.flushes = metrics.flushObserver();
    }

    /** One partition of a Produce to {@code topic}, answered {@code errorCode}; {@code batch} wraps its batch. */
    public void produced(String topic, Records records, RecordBatch batch, short errorCode) {
        TopicMetrics m = metrics.topic(topic);
        int bytes = records == null ? 0 : records.sizeInBytes();
        if (errorCode == Errors.NONE.code()) {
            m.produced(batch.recordsCount(), bytes);
        } else {
            m.produceFailed(Errors.forCode(errorCode), bytes);
        }
    }

    /** One partition of an answered Fetch from {@code topic}. */
    public void fetched(String topic, FetchResponse.PartitionData pd) {
        Errors error = Errors.forCode(pd.errorCode());
        TopicMetrics m = error == Errors.UNKNOWN_TOPIC_OR_PARTITION || error == Errors.UNKNOWN_TOPIC_ID
                ? metrics.allTopics() : metrics.topic(topic);
        m.fetched(pd.records().sizeInBytes(), error);
    }

    /** A request answered with {@code response}; the times are {@link System#nanoTime()}s, as the network layer reads them. */
    public void answered(ApiKey key, short version, long received, long started, long handled, long completed,
            long writing, long written, ApiMessage response) {
        metrics.requestAnswered(key, version, received, started, handled, completed, writing, written, false,
                response);
    }

    /** A group-commit force of {@code nanos} that made {@code offsets} offsets durable. */
    public void forced(long nanos, long offsets) {
        flushes.forced(nanos, offsets);
    }

    /** The records a topic's {@code MessagesInPerSec} counted. */
    public long messagesIn(String topic) {
        return metrics.topic(topic).messagesIn();
    }

    /** The bytes a topic's {@code BytesOutPerSec} counted. */
    public long bytesOut(String topic) {
        return metrics.topic(topic).bytesOut();
    }

    /** How many requests of this type {@link #answered} counted. */
    public long requestsAnswered(ApiKey key) {
        return metrics.requestsAnswered(key);
    }
}
