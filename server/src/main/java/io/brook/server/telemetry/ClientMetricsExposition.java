package io.brook.server.telemetry;

import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.PrometheusNaming;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Pushed client metrics as Prometheus families, built with the Prometheus Java client's model.
 * A metric's name becomes a family name with every character outside {@code [a-zA-Z0-9_:]}
 * replaced by '_' ({@code org.apache.kafka.producer.record.send.total} becomes
 * {@code org_apache_kafka_producer_record_send} and, as a counter, is written with
 * {@code _total}); each point is labelled {@code client_instance_id} and {@code client_id}
 * first, then with the point's own attributes (names mapped the same way; one that maps onto a
 * label already there is dropped). A family takes the kind of its first point (monotonic sum:
 * counter, else gauge); points of another kind under the same name are dropped, and so is a
 * second point with the same labels.
 */
final class ClientMetricsExposition {

    static final String CLIENT_INSTANCE_ID = "client_instance_id";
    static final String CLIENT_ID = "client_id";
    private static final Pattern ILLEGAL = Pattern.compile("[^a-zA-Z0-9_:]");
    private static final Pattern ILLEGAL_LABEL = Pattern.compile("[^a-zA-Z0-9_]");

    /** A point with the instance it came from. */
    record Labelled(String clientInstanceId, String clientId, MetricPoint point) {
    }

    private ClientMetricsExposition() {
    }

    static List<MetricSnapshot> families(List<Labelled> points) {
        Map<String, Family> families = new TreeMap<>();
        for (Labelled l : points) {
            String name = familyName(l.point().name());
            if (name == null) {
                continue;
            }
            families.computeIfAbsent(name, n -> new Family(n, l.point().counter())).add(l);
        }
        List<MetricSnapshot> out = new ArrayList<>();
        for (Family f : families.values()) {
            out.add(f.build());
        }
        return out;
    }

    /** The family name for a client metric's name, or null when none can be made. */
    static String familyName(String metric) {
        String s = ILLEGAL.matcher(metric).replaceAll("_");
        if (!s.isEmpty() && Character.isDigit(s.charAt(0))) {
            s = "_" + s;
        }
        s = PrometheusNaming.sanitizeMetricName(s);
        return s.isEmpty() || !PrometheusNaming.isValidLegacyMetricName(s) ? null : s;
    }

    static String labelName(String attribute) {
        String s = ILLEGAL_LABEL.matcher(attribute).replaceAll("_");
        if (s.isEmpty() || Character.isDigit(s.charAt(0))) {
            s = "_" + s;
        }
        // names starting with __ are reserved for Prometheus' own use
        while (s.startsWith("__")) {
            s = s.substring(1);
        }
        return PrometheusNaming.isValidLegacyLabelName(s) ? s : null;
    }

    private static final class Family {
        private final String name;
        private final boolean counter;
        private final CounterSnapshot.Builder counters;
        private final GaugeSnapshot.Builder gauges;
        private final Set<Labels> seen = new HashSet<>();

        Family(String name, boolean counter) {
            this.name = name;
            this.counter = counter;
            String help = "Client metric pushed by KIP-714 clients";
            this.counters = CounterSnapshot.builder().name(name).help(help);
            this.gauges = GaugeSnapshot.builder().name(name).help(help);
        }

        void add(Labelled l) {
            MetricPoint p = l.point();
            // a Prometheus counter is never negative
            if (p.counter() != counter || counter && !(p.value() >= 0)) {
                return;
            }
            Map<String, String> labels = new LinkedHashMap<>();
            labels.put(CLIENT_INSTANCE_ID, l.clientInstanceId());
            labels.put(CLIENT_ID, l.clientId() == null ? "" : l.clientId());
            for (Map.Entry<String, String> a : p.attributes().entrySet()) {
                String n = labelName(a.getKey());
                if (n != null) {
                    labels.putIfAbsent(n, a.getValue());
                }
            }
            Labels ls = Labels.of(new ArrayList<>(labels.keySet()), new ArrayList<>(labels.values()));
            if (!seen.add(ls)) {
                return;
            }
            if (counter) {
                counters.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().labels(ls).value(p.value()).build());
            } else {
                gauges.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(ls).value(p.value()).build());
            }
        }

        MetricSnapshot build() {
            return counter ? counters.build() : gauges.build();
        }

        @Override
        public String toString() {
            return name;
        }
    }
}
