package io.brook.server.telemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.testkit.MutableClock;
import io.brook.wire.message.GetTelemetrySubscriptionsResponse;
import io.brook.wire.message.PushTelemetryRequest;
import io.brook.wire.protocol.Errors;
import io.brook.wire.record.Compression;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.MetricsData;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.metrics.v1.Sum;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClientTelemetryTest {

    private static final ClientSelector PRODUCER = new ClientSelector(null, "app-producer", "apache-kafka-java",
            "4.4.0", "127.0.0.1", 40000);
    private static final UUID ZERO = new UUID(0, 0);

    private final MutableClock clock = new MutableClock(1_000_000);
    private final AtomicLong nextId = new AtomicLong(1000);

    @TempDir
    Path dir;

    private ClientTelemetry telemetry() throws IOException {
        return ClientTelemetry.open(dir, ClientTelemetry.DEFAULT_MAX_BYTES, clock,
                () -> new UUID(0x1234, nextId.incrementAndGet()));
    }

    private static Map<String, String> configs(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    private static byte[] payload(String gaugeName, double gauge, String counterName, long count) {
        NumberDataPoint g = NumberDataPoint.newBuilder().setAsDouble(gauge).addAttributes(KeyValue.newBuilder()
                .setKey("node.id").setValue(AnyValue.newBuilder().setStringValue("1"))).build();
        NumberDataPoint c = NumberDataPoint.newBuilder().setAsInt(count).build();
        return MetricsData.newBuilder().addResourceMetrics(ResourceMetrics.newBuilder().addScopeMetrics(
                ScopeMetrics.newBuilder()
                        .addMetrics(Metric.newBuilder().setName(gaugeName).setGauge(Gauge.newBuilder().addDataPoints(g)))
                        .addMetrics(Metric.newBuilder().setName(counterName).setSum(Sum.newBuilder()
                                .setIsMonotonic(true).addDataPoints(c)))))
                .build().toByteArray();
    }

    private static PushTelemetryRequest push(GetTelemetrySubscriptionsResponse sub, Compression codec, byte[] metrics) {
        return new PushTelemetryRequest().clientInstanceId(sub.clientInstanceId()).subscriptionId(sub.subscriptionId())
                .compressionType((byte) codec.id()).terminating(false)
                .metrics(codec == Compression.NONE ? metrics : codec.compress(metrics));
    }

    private static String exposition(ClientTelemetry t) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(out, new MetricSnapshots(t.snapshots()));
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void assignsAnInstanceIdAndTheSubscriptionOfTheMatchingSubscriptions() throws Exception {
        ClientTelemetry t = telemetry();
        t.replace("producers", configs("metrics", "org.apache.kafka.producer.", "interval.ms", "1000",
                "match", "client_id=app-.*,client_software_name=apache-kafka-java"), false);
        t.replace("consumers", configs("metrics", "org.apache.kafka.consumer.", "interval.ms", "500",
                "match", "client_id=other"), false);
        GetTelemetrySubscriptionsResponse r = t.subscriptions(ZERO, PRODUCER);
        assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(r.clientInstanceId()).isNotEqualTo(ZERO);
        assertThat(r.requestedMetrics()).containsExactly("org.apache.kafka.producer.");
        assertThat(r.pushIntervalMs()).isEqualTo(1000);
        assertThat(r.telemetryMaxBytes()).isEqualTo(1024 * 1024);
        assertThat(r.deltaTemporality()).isFalse();
        assertThat(r.acceptedCompressionTypes()).containsExactly((byte) 4, (byte) 3, (byte) 1, (byte) 2);

        t.replace("all", configs("metrics", "*", "interval.ms", "2000"), false);
        clock.advance(1000);
        GetTelemetrySubscriptionsResponse all = t.subscriptions(r.clientInstanceId(), PRODUCER);
        assertThat(all.requestedMetrics()).containsExactly("*");
        assertThat(all.pushIntervalMs()).isEqualTo(1000);
        assertThat(all.subscriptionId()).isNotEqualTo(r.subscriptionId());
    }

    @Test
    void aClientNoSubscriptionMatchesIsAskedForNothingAtKafkasDefaultInterval() throws Exception {
        ClientTelemetry t = telemetry();
        t.replace("other", configs("metrics", "*", "match", "client_id=someone-else"), false);
        GetTelemetrySubscriptionsResponse r = t.subscriptions(ZERO, PRODUCER);
        assertThat(r.requestedMetrics()).isEmpty();
        assertThat(r.pushIntervalMs()).isEqualTo(300_000);
    }

    @Test
    void requestsEarlierThanThePushIntervalAreThrottled() throws Exception {
        ClientTelemetry t = telemetry();
        t.replace("s", configs("metrics", "*", "interval.ms", "1000"), false);
        GetTelemetrySubscriptionsResponse sub = t.subscriptions(ZERO, PRODUCER);
        assertThat(t.subscriptions(sub.clientInstanceId(), PRODUCER).errorCode())
                .isEqualTo(Errors.THROTTLING_QUOTA_EXCEEDED.code());
        byte[] m = payload("g", 1, "c", 1);
        // the first push after the subscription is accepted at once, the next one an interval later
        assertThat(t.push(push(sub, Compression.NONE, m), PRODUCER).error()).isEqualTo(Errors.NONE);
        assertThat(t.push(push(sub, Compression.NONE, m), PRODUCER).error()).isEqualTo(Errors.THROTTLING_QUOTA_EXCEEDED);
        clock.advance(999);
        assertThat(t.push(push(sub, Compression.NONE, m), PRODUCER).error()).isEqualTo(Errors.THROTTLING_QUOTA_EXCEEDED);
        clock.advance(1);
        assertThat(t.push(push(sub, Compression.NONE, m), PRODUCER).error()).isEqualTo(Errors.NONE);
    }

    @Test
    void anUnknownSubscriptionIdIsRefusedAndTheClientMayAskAgainAtOnce() throws Exception {
        ClientTelemetry t = telemetry();
        t.replace("s", configs("metrics", "*", "interval.ms", "1000"), false);
        GetTelemetrySubscriptionsResponse sub = t.subscriptions(ZERO, PRODUCER);
        PushTelemetryRequest wrong = push(sub, Compression.NONE, payload("g", 1, "c", 1))
                .subscriptionId(sub.subscriptionId() + 1);
        assertThat(t.push(wrong, PRODUCER).error()).isEqualTo(Errors.UNKNOWN_SUBSCRIPTION_ID);
        GetTelemetrySubscriptionsResponse again = t.subscriptions(sub.clientInstanceId(), PRODUCER);
        assertThat(again.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(again.subscriptionId()).isEqualTo(sub.subscriptionId());
    }

    @Test
    void aSubscriptionChangeGivesTheClientItsNewSubscriptionAtItsNextRequest() throws Exception {
        ClientTelemetry t = telemetry();
        t.replace("s", configs("metrics", "a.", "interval.ms", "60000"), false);
        GetTelemetrySubscriptionsResponse sub = t.subscriptions(ZERO, PRODUCER);
        t.replace("s", configs("metrics", "b.", "interval.ms", "60000"), false);
        assertThat(t.push(push(sub, Compression.NONE, new byte[0]), PRODUCER).error())
                .isEqualTo(Errors.UNKNOWN_SUBSCRIPTION_ID);
        GetTelemetrySubscriptionsResponse next = t.subscriptions(sub.clientInstanceId(), PRODUCER);
        assertThat(next.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(next.requestedMetrics()).containsExactly("b.");
    }

    @Test
    void aPayloadLargerThanTelemetryMaxBytesIsRefused() throws Exception {
        ClientTelemetry t = ClientTelemetry.open(dir, 100, clock, UUID::randomUUID);
        t.replace("s", configs("metrics", "*"), false);
        GetTelemetrySubscriptionsResponse sub = t.subscriptions(ZERO, PRODUCER);
        assertThat(sub.telemetryMaxBytes()).isEqualTo(100);
        assertThat(t.push(push(sub, Compression.NONE, new byte[101]), PRODUCER).error())
                .isEqualTo(Errors.TELEMETRY_TOO_LARGE);
    }

    @Test
    void undecodablePayloadsAreInvalidRecord() throws Exception {
        ClientTelemetry t = telemetry();
        t.replace("s", configs("metrics", "*", "interval.ms", "100"), false);
        GetTelemetrySubscriptionsResponse sub = t.subscriptions(ZERO, PRODUCER);
        byte[] garbage = new byte[64];
        Arrays.fill(garbage, (byte) 0xff);
        assertThat(t.push(push(sub, Compression.NONE, garbage), PRODUCER).error()).isEqualTo(Errors.INVALID_RECORD);
        clock.advance(100);
        // claims gzip but is not
        PushTelemetryRequest notGzip = push(sub, Compression.NONE, garbage).compressionType((byte) Compression.GZIP.id());
        assertThat(t.push(notGzip, PRODUCER).error()).isEqualTo(Errors.INVALID_RECORD);
        clock.advance(100);
        assertThat(t.push(push(sub, Compression.NONE, garbage).compressionType((byte) 9), PRODUCER).error())
                .isEqualTo(Errors.UNSUPPORTED_COMPRESSION_TYPE);
        clock.advance(100);
        // a gzip bomb: far more than 16 x telemetry.max.bytes once decompressed
        ClientTelemetry small = ClientTelemetry.open(null, 1000, clock, UUID::randomUUID);
        small.replace("s", configs("metrics", "*"), false);
        GetTelemetrySubscriptionsResponse s2 = small.subscriptions(ZERO, PRODUCER);
        byte[] bomb = Compression.GZIP.compress(new byte[1 << 19]);
        assertThat(bomb.length).isLessThan(1000);
        assertThat(small.push(push(s2, Compression.NONE, bomb).compressionType((byte) Compression.GZIP.id()), PRODUCER)
                .error()).isEqualTo(Errors.INVALID_RECORD);
        // still serving
        clock.advance(100);
        assertThat(t.push(push(sub, Compression.NONE, payload("g", 1, "c", 1)), PRODUCER).error()).isEqualTo(Errors.NONE);
    }

    @Test
    void pushedValuesAreExposedLabelledByClientInEveryCodec() throws Exception {
        ClientTelemetry t = telemetry();
        t.replace("s", configs("metrics", "*", "interval.ms", "100"), false);
        GetTelemetrySubscriptionsResponse sub = t.subscriptions(ZERO, PRODUCER);
        String id = TelemetryIds.toKafkaString(sub.clientInstanceId());
        long n = 0;
        for (Compression codec : Compression.values()) {
            n++;
            assertThat(t.push(push(sub, codec, payload("org.apache.kafka.producer.buffer.available.bytes", 42.5,
                    "org.apache.kafka.producer.record.send.total", n)), PRODUCER).error()).as(codec.name())
                    .isEqualTo(Errors.NONE);
            String text = exposition(t);
            assertThat(text).contains("org_apache_kafka_producer_record_send_total{client_id=\"app-producer\","
                    + "client_instance_id=\"" + id + "\"} " + n + ".0");
            clock.advance(100);
        }
        assertThat(exposition(t)).contains("org_apache_kafka_producer_buffer_available_bytes{client_id=\"app-producer\","
                + "client_instance_id=\"" + id + "\",node_id=\"1\"} 42.5");
    }

    @Test
    void aTerminatingPushIsAcceptedEarlyAndIsTheLast() throws Exception {
        ClientTelemetry t = telemetry();
        t.replace("s", configs("metrics", "*", "interval.ms", "1000"), false);
        GetTelemetrySubscriptionsResponse sub = t.subscriptions(ZERO, PRODUCER);
        assertThat(t.push(push(sub, Compression.NONE, payload("g", 1, "c", 1)), PRODUCER).error()).isEqualTo(Errors.NONE);
        assertThat(t.push(push(sub, Compression.NONE, payload("g", 2, "c", 2)).terminating(true), PRODUCER).error())
                .isEqualTo(Errors.NONE);
        clock.advance(1000);
        assertThat(t.push(push(sub, Compression.NONE, payload("g", 3, "c", 3)), PRODUCER).error())
                .isEqualTo(Errors.INVALID_REQUEST);
        assertThat(exposition(t)).contains("g{client_id=\"app-producer\"").contains("} 2.0");
    }

    @Test
    void instancesNotHeardFromForThreeIntervalsOrAMinuteAreForgottenWithTheirMetrics() throws Exception {
        ClientTelemetry t = telemetry();
        t.replace("s", configs("metrics", "*", "interval.ms", "100"), false);
        GetTelemetrySubscriptionsResponse sub = t.subscriptions(ZERO, PRODUCER);
        t.push(push(sub, Compression.NONE, payload("g", 1, "c", 1)), PRODUCER);
        clock.advance(59_999);
        assertThat(exposition(t)).contains("g{");
        clock.advance(1);
        assertThat(t.snapshots()).isEmpty();
        assertThat(t.instanceCount()).isZero();
        // the push interval rules the expiry when three of them are longer than a minute
        t.replace("s", configs("metrics", "*", "interval.ms", "30000"), false);
        t.subscriptions(ZERO, PRODUCER);
        clock.advance(89_999);
        t.snapshots();
        assertThat(t.instanceCount()).isOne();
        clock.advance(1);
        t.snapshots();
        assertThat(t.instanceCount()).isZero();
    }

    @Test
    void theNumberOfInstancesIsBounded() throws Exception {
        ClientTelemetry t = telemetry();
        for (int i = 0; i < ClientTelemetry.MAX_INSTANCES + 10; i++) {
            t.subscriptions(ZERO, PRODUCER);
        }
        assertThat(t.instanceCount()).isEqualTo(ClientTelemetry.MAX_INSTANCES);
    }

    @Test
    void reservedInstanceIdsArePushedInvalidRequest() throws Exception {
        ClientTelemetry t = telemetry();
        PushTelemetryRequest r = new PushTelemetryRequest().clientInstanceId(ZERO).metrics(new byte[0]);
        assertThat(t.push(r, PRODUCER).error()).isEqualTo(Errors.INVALID_REQUEST);
    }

    @Test
    void subscriptionsSurviveARestartAndAnEmptyOneIsRemoved() throws Exception {
        ClientTelemetry t = telemetry();
        t.replace("basic.v1", configs("metrics", "org.apache.kafka.producer.", "interval.ms", "1000"), false);
        t.replace("other", configs("match", "client_id=x"), false);
        t.replace("dry", configs("metrics", "*"), true);
        ClientTelemetry reopened = telemetry();
        assertThat(reopened.subscriptionNames()).containsExactly("basic.v1", "other");
        assertThat(reopened.configs("basic.v1")).containsEntry("interval.ms", "1000")
                .containsEntry("metrics", "org.apache.kafka.producer.");
        reopened.replace("other", Map.of(), false);
        assertThat(telemetry().subscriptionNames()).containsExactly("basic.v1");
    }

    @Test
    void invalidSubscriptionConfigsGetKafkasErrors() throws Exception {
        ClientTelemetry t = telemetry();
        assertError(t, "s", configs("colour", "red"), Errors.INVALID_REQUEST);
        assertError(t, "s", configs("interval.ms", "99"), Errors.INVALID_REQUEST);
        assertError(t, "s", configs("interval.ms", "3600001"), Errors.INVALID_REQUEST);
        assertError(t, "s", configs("interval.ms", "soon"), Errors.INVALID_CONFIG);
        assertError(t, "s", configs("match", "client_colour=red"), Errors.INVALID_CONFIG);
        assertError(t, "s", configs("match", "client_id=("), Errors.INVALID_CONFIG);
        assertError(t, "s", configs("match", "client_id"), Errors.INVALID_CONFIG);
        assertError(t, "", configs("metrics", "*"), Errors.INVALID_REQUEST);
        assertThat(t.subscriptionNames()).isEmpty();
        t.replace("s", configs("interval.ms", "100", "match", "client_source_port=4.*"), false);
        assertThat(t.subscriptionNames()).containsExactly("s");
    }

    private static void assertError(ClientTelemetry t, String name, Map<String, String> c, Errors expected) {
        assertThatThrownBy(() -> t.replace(name, c, false)).isInstanceOfSatisfying(InvalidSubscriptionException.class,
                e -> assertThat(e.error()).isEqualTo(expected));
    }

    @Test
    void matchPatternsMatchTheWholeValueOfEverySelector() throws Exception {
        ClientMetricsSubscription s = ClientMetricsSubscription.parse("s", configs("match",
                "client_software_version=4\\..*,client_source_address=127\\.0\\.0\\.1,client_source_port=40000"));
        assertThat(s.matches(PRODUCER)).isTrue();
        assertThat(ClientMetricsSubscription.parse("s", configs("match", "client_id=app")).matches(PRODUCER)).isFalse();
        UUID id = new UUID(1, 2);
        assertThat(ClientMetricsSubscription.parse("s", configs("match", "client_instance_id="
                + TelemetryIds.toKafkaString(id))).matches(PRODUCER.withInstanceId(id))).isTrue();
        assertThat(List.of(TelemetryIds.toKafkaString(id).length())).containsExactly(22);
    }
}
