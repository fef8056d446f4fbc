package io.brook.server.metrics;

import com.codahale.metrics.Histogram;
import com.codahale.metrics.Meter;
import io.brook.wire.protocol.ApiKey;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Kafka's {@code kafka.network:type=RequestMetrics} for each request type: {@code RequestsPerSec}
 * (tagged {@code request} and {@code version}), the time histograms in milliseconds
 * ({@code TotalTimeMs}, {@code RequestQueueTimeMs}, {@code LocalTimeMs}, {@code RemoteTimeMs},
 * {@code ResponseQueueTimeMs}, {@code ResponseSendTimeMs}) and {@code ErrorsPerSec} tagged with
 * {@code error}. What the times mean here:
 *
 * <ul>
 *   <li>RequestQueueTime: from the frame read to the handler's start (0 when run inline);</li>
 *   <li>LocalTime: the handler's own run;</li>
 *   <li>RemoteTime: from the handler's return to the answer, i.e. waiting for the group commit
 *       (acks=all), a long poll or the group coordinator; Kafka's purgatory time;</li>
 *   <li>ResponseQueueTime: from the answer to its turn in the connection's order;</li>
 *   <li>ResponseSendTime: encoding it and handing it to the socket (not the client's reading).</li>
 * </ul>
 *
 * <p>ErrorsPerSec counts {@code error=NONE} for every answer and {@code UNKNOWN_SERVER_ERROR} for
 * a handler that failed; error codes inside a response body are not counted.
 *
 * <p>A type's metrics are created when its first request is answered, so the registry holds
 * only the APIs clients use. Recording is called on event loops: no allocation once created.
 */
final class RequestMetrics {

    private static final int MAX_VERSIONS = 32;
    private static final ApiKey[] KEYS = ApiKey.values();

    private final BrokerMetrics owner;
    private final AtomicReferenceArray<PerType> types = new AtomicReferenceArray<>(KEYS.length);

    RequestMetrics(BrokerMetrics owner) {
        this.owner = owner;
    }

    void answered(ApiKey key, short version, long received, long started, long handled, long completed, long writing,
            long written, boolean failed) {
        PerType t = types.get(key.ordinal());
        if (t == null) {
            t = create(key);
        }
        t.requests(version).mark();
        t.totalTime.update(millis(written - received));
        t.requestQueueTime.update(millis(started - received));
        long localEnd = Math.min(handled, completed);
        t.localTime.update(millis(localEnd - started));
        t.remoteTime.update(millis(completed - localEnd));
        t.responseQueueTime.update(millis(writing - completed));
        t.responseSendTime.update(millis(written - writing));
        (failed ? t.unknownServerErrors : t.noErrors).mark();
    }

    /** How many requests of {@code key} were answered (all versions), for tests. */
    long count(ApiKey key) {
        PerType t = types.get(key.ordinal());
        return t == null ? 0 : t.totalTime.getCount();
    }

    private static long millis(long nanos) {
        return Math.max(0, Math.round(nanos / (double) TimeUnit.MILLISECONDS.toNanos(1)));
    }

    private synchronized PerType create(ApiKey key) {
        PerType t = types.get(key.ordinal());
        if (t == null) {
            t = new PerType(key);
            types.set(key.ordinal(), t);
        }
        return t;
    }

    private final class PerType {
        private final ApiKey key;
        private final AtomicReferenceArray<Meter> requests = new AtomicReferenceArray<>(MAX_VERSIONS);
        final Histogram totalTime;
        final Histogram requestQueueTime;
        final Histogram localTime;
        final Histogram remoteTime;
        final Histogram responseQueueTime;
        final Histogram responseSendTime;
        final Meter noErrors;
        final Meter unknownServerErrors;

        PerType(ApiKey key) {
            this.key = key;
            String r = key.displayName();
            totalTime = owner.histogram(MetricName.of("kafka.network", "RequestMetrics", "TotalTimeMs", "request", r));
            requestQueueTime = owner.histogram(
                    MetricName.of("kafka.network", "RequestMetrics", "RequestQueueTimeMs", "request", r));
            localTime = owner.histogram(MetricName.of("kafka.network", "RequestMetrics", "LocalTimeMs", "request", r));
            remoteTime = owner.histogram(MetricName.of("kafka.network", "RequestMetrics", "RemoteTimeMs", "request", r));
            responseQueueTime = owner.histogram(
                    MetricName.of("kafka.network", "RequestMetrics", "ResponseQueueTimeMs", "request", r));
            responseSendTime = owner.histogram(
                    MetricName.of("kafka.network", "RequestMetrics", "ResponseSendTimeMs", "request", r));
            noErrors = owner.meter(MetricName.of("kafka.network", "RequestMetrics", "ErrorsPerSec", "request", r,
                    "error", "NONE"));
            unknownServerErrors = owner.meter(MetricName.of("kafka.network", "RequestMetrics", "ErrorsPerSec",
                    "request", r, "error", "UNKNOWN_SERVER_ERROR"));
        }

        Meter requests(short version) {
            int v = Math.min(Math.max(version, 0), MAX_VERSIONS - 1);
            Meter m = requests.get(v);
            if (m == null) {
                synchronized (this) {
                    m = requests.get(v);
                    if (m == null) {
                        m = owner.meter(MetricName.of("kafka.network", "RequestMetrics", "RequestsPerSec",
                                "request", key.displayName(), "version", Integer.toString(v)));
                        requests.set(v, m);
                    }
                }
            }
            return m;
        }
    }
}
