package io.brook.server.metrics;

import com.codahale.metrics.Meter;
import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.ErrorCounter;
import io.brook.wire.protocol.Errors;
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
 * <p>ErrorsPerSec counts the error codes of each answer as Kafka's request metrics do (its
 * {@code AbstractResponse.errorCounts()}): every error code in the body once, per partition, topic
 * or group where the response carries one, NONE included, so a produce of three partitions marks
 * {@code error=NONE} three times. A request without an answer (acks=0) counts one NONE, or one
 * UNKNOWN_SERVER_ERROR when its handler failed. Codes Brook does not know count as
 * UNKNOWN_SERVER_ERROR, as in Kafka. The all-NONE answer walks the body and marks one meter once.
 *
 * <p>A type's metrics are created when its first request is answered, so the registry holds
 * only the APIs clients use. Recording is called on event loops: no allocation once created
 * (but for the rare request that enters the time histograms' sample). The six time histograms
 * share one sample of requests ({@link RequestTimes}): one update per request, not six.
 */
final class RequestMetrics {

    private static final int MAX_VERSIONS = 32;
    private static final ApiKey[] KEYS = ApiKey.values();
    private static final Errors[] ERRORS = Errors.values();
    /** The names of {@link RequestTimes}'s histograms, in its order. */
    private static final String[] TIME_NAMES = {
        "TotalTimeMs", "RequestQueueTimeMs", "LocalTimeMs", "RemoteTimeMs", "ResponseQueueTimeMs", "ResponseSendTimeMs",
    };

    private final BrokerMetrics owner;
    private final AtomicReferenceArray<PerType> types = new AtomicReferenceArray<>(KEYS.length);

    RequestMetrics(BrokerMetrics owner) {
        this.owner = owner;
    }

    void answered(ApiKey key, short version, long received, long started, long handled, long completed, long writing,
            long written, boolean failed, ApiMessage response) {
        PerType t = types.get(key.ordinal());
        if (t == null) {
            t = create(key);
        }
        t.requests(version).mark(1, written);
        long localEnd = Math.min(handled, completed);
        t.times.update(written, millis(written - received), millis(started - received), millis(localEnd - started),
                millis(completed - localEnd), millis(writing - completed), millis(written - writing));
        if (response == null) {
            (failed ? t.unknownServerErrors : t.noErrors).mark(1, written);
        } else {
            int none = response.countErrors(version, t);
            if (none > 0) {
                t.noErrors.mark(none, written);
            }
        }
    }

    /** How many requests of {@code key} were answered (all versions), for tests. */
    long count(ApiKey key) {
        PerType t = types.get(key.ordinal());
        return t == null ? 0 : t.times.count();
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

    private final class PerType implements ErrorCounter {
        private final ApiKey key;
        private final AtomicReferenceArray<StampedMeter> requests = new AtomicReferenceArray<>(MAX_VERSIONS);
        /** TotalTimeMs, RequestQueueTimeMs, LocalTimeMs, RemoteTimeMs, ResponseQueueTimeMs, ResponseSendTimeMs. */
        final RequestTimes times = new RequestTimes(System.nanoTime());
        final StampedMeter noErrors;
        final StampedMeter unknownServerErrors;
        private final AtomicReferenceArray<Meter> errors = new AtomicReferenceArray<>(ERRORS.length);

        PerType(ApiKey key) {
            this.key = key;
            String r = key.displayName();
            for (int i = 0; i < TIME_NAMES.length; i++) {
                owner.histogram(MetricName.of("kafka.network", "RequestMetrics", TIME_NAMES[i], "request", r),
                        times.histogram(i));
            }
            noErrors = owner.meter(MetricName.of("kafka.network", "RequestMetrics", "ErrorsPerSec", "request", r,
                    "error", "NONE"));
            unknownServerErrors = owner.meter(MetricName.of("kafka.network", "RequestMetrics", "ErrorsPerSec",
                    "request", r, "error", "UNKNOWN_SERVER_ERROR"));
        }

        @Override
        public void error(short code) {
            Errors e = Errors.forCode(code);
            Meter m = errors.get(e.ordinal());
            if (m == null) {
                synchronized (this) {
                    m = errors.get(e.ordinal());
                    if (m == null) {
                        m = e == Errors.UNKNOWN_SERVER_ERROR ? unknownServerErrors : owner.meter(MetricName.of(
                                "kafka.network", "RequestMetrics", "ErrorsPerSec", "request", key.displayName(),
                                "error", e.name()));
                        errors.set(e.ordinal(), m);
                    }
                }
            }
            m.mark();
        }

        StampedMeter requests(short version) {
            int v = Math.min(Math.max(version, 0), MAX_VERSIONS - 1);
            StampedMeter m = requests.get(v);
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
