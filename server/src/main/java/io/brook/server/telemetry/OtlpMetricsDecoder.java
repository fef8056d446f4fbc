package io.brook.server.telemetry;

import com.google.protobuf.InvalidProtocolBufferException;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.MetricsData;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads the payload of a PushTelemetry request, an OTLP {@code MetricsData} message (KIP-714:
 * OpenTelemetry metrics v1, protobuf), with the OpenTelemetry project's generated classes, into
 * the number data points it carries: gauges, and sums (monotonic ones as counters). Histograms,
 * exponential histograms and summaries are skipped: the Java clients send none. A point's
 * attributes keep their string, boolean, integer and double values; other kinds of attribute
 * values are skipped.
 *
 * <p>Bounds: protobuf's parser checks every length against the bytes that remain (the payload is
 * at most {@code telemetry.max.bytes} compressed and a fixed multiple of that decompressed); at
 * most {@code maxPoints} points are returned, the rest are counted as dropped.
 */
final class OtlpMetricsDecoder {

    /** The points read, and how many more there were beyond the limit. */
    record Decoded(List<MetricPoint> points, int dropped) {
    }

    private OtlpMetricsDecoder() {
    }

    /**
     * @throws InvalidProtocolBufferException when the bytes are not a {@code MetricsData} message
     */
    static Decoded decode(ByteBuffer payload, int maxPoints) throws InvalidProtocolBufferException {
        MetricsData data = MetricsData.parseFrom(payload);
        List<MetricPoint> out = new ArrayList<>();
        int dropped = 0;
        for (ResourceMetrics rm : data.getResourceMetricsList()) {
            for (ScopeMetrics sm : rm.getScopeMetricsList()) {
                for (Metric m : sm.getMetricsList()) {
                    List<NumberDataPoint> points;
                    boolean counter;
                    switch (m.getDataCase()) {
                        case GAUGE -> {
                            points = m.getGauge().getDataPointsList();
                            counter = false;
                        }
                        case SUM -> {
                            points = m.getSum().getDataPointsList();
                            counter = m.getSum().getIsMonotonic();
                        }
                        default -> {
                            continue;
                        }
                    }
                    if (m.getName().isEmpty()) {
                        continue;
                    }
                    for (NumberDataPoint p : points) {
                        double value;
                        switch (p.getValueCase()) {
                            case AS_DOUBLE -> value = p.getAsDouble();
                            case AS_INT -> value = p.getAsInt();
                            default -> {
                                continue;
                            }
                        }
                        if (out.size() >= maxPoints) {
                            dropped++;
                            continue;
                        }
                        out.add(new MetricPoint(m.getName(), attributes(p.getAttributesList()), counter, value));
                    }
                }
            }
        }
        return new Decoded(out, dropped);
    }

    private static Map<String, String> attributes(List<KeyValue> kvs) {
        Map<String, String> out = new TreeMap<>();
        for (KeyValue kv : kvs) {
            AnyValue v = kv.getValue();
            String s = switch (v.getValueCase()) {
                case STRING_VALUE -> v.getStringValue();
                case BOOL_VALUE -> Boolean.toString(v.getBoolValue());
                case INT_VALUE -> Long.toString(v.getIntValue());
                case DOUBLE_VALUE -> Double.toString(v.getDoubleValue());
                default -> null;
            };
            if (s != null && !kv.getKey().isEmpty()) {
                out.put(kv.getKey(), s);
            }
        }
        return out;
    }
}
