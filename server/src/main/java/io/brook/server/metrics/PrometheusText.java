package io.brook.server.metrics;

import com.codahale.metrics.Counting;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.Meter;
import com.codahale.metrics.Metric;
import com.codahale.metrics.Snapshot;
import com.codahale.metrics.Timer;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Quantile;
import io.prometheus.metrics.model.snapshots.Quantiles;
import io.prometheus.metrics.model.snapshots.SummarySnapshot;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The broker's metrics in Prometheus' text format, written by the Prometheus Java client's
 * exposition library from snapshots of the Dropwizard registry (the client's own Dropwizard
 * bridge is not used: it would name the metrics after the registry keys, which are JMX names),
 * plus the client's JVM metrics ({@code jvm_*}, {@code process_*}) and the metrics clients pushed
 * (KIP-714, {@link BrokerMetrics#clientMetrics}).
 *
 * <p>Mapping, as the usual jmx_exporter rules for Kafka do it: the family name is
 * {@link MetricName#prometheusName()}, the tags other than type and name are labels; a meter is a
 * counter of its count ({@code _total}), a gauge a gauge, a histogram a summary of its quantiles
 * (0.5 to 0.999) with its count, a timer the same in milliseconds. A summary's {@code _sum} is the
 * reservoir's mean times the count: Dropwizard keeps no exact sum.
 */
public final class PrometheusText {

    public static final String CONTENT_TYPE = PrometheusTextFormatWriter.CONTENT_TYPE;
    private static final double[] QUANTILES = {0.5, 0.75, 0.95, 0.98, 0.99, 0.999};
    private static final double NANOS_PER_MS = TimeUnit.MILLISECONDS.toNanos(1);

    private final BrokerMetrics metrics;
    private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();
    /** The JVM's metrics, set up at the first scrape (it reads the platform MXBeans: slow to start). */
    private PrometheusRegistry jvm;

    public PrometheusText(BrokerMetrics metrics) {
        this.metrics = metrics;
    }

    private synchronized PrometheusRegistry jvm() {
        if (jvm == null) {
            PrometheusRegistry r = new PrometheusRegistry();
            JvmMetrics.builder().register(r);
            jvm = r;
        }
        return jvm;
    }

    /** Writes every metric; may block briefly for the group coordinator's snapshot. */
    public void write(OutputStream out) throws IOException {
        writer.write(out, snapshots());
    }

    MetricSnapshots snapshots() {
        GroupMetrics groups = metrics.groups();
        if (groups != null) {
            groups.current(); // first, so that the lag gauges of new groups are in this scrape
        }
        Map<String, Family> families = new TreeMap<>();
        for (Map.Entry<String, Metric> e : metrics.registry().getMetrics().entrySet()) {
            MetricName name = metrics.nameOf(e.getKey());
            if (name == null) {
                continue;
            }
            Family f = families.computeIfAbsent(name.prometheusName(), n -> new Family(n, name));
            Labels labels = Labels.of(name.labelNames(), name.labelValues());
            f.add(labels, e.getValue());
        }
        List<MetricSnapshot> out = new ArrayList<>();
        for (Family f : families.values()) {
            MetricSnapshot s = f.build();
            if (s != null) {
                out.add(s);
            }
        }
        for (MetricSnapshot s : jvm().scrape()) {
            out.add(s);
        }
        java.util.Set<String> taken = new java.util.HashSet<>();
        for (MetricSnapshot s : out) {
            taken.add(s.getMetadata().getPrometheusName());
        }
        for (MetricSnapshot s : metrics.clientMetrics()) {
            // a pushed family never replaces one of the broker's own
            if (taken.add(s.getMetadata().getPrometheusName())) {
                out.add(s);
            }
        }
        return new MetricSnapshots(out);
    }

    /** The data points of one family; the kind is that of its first metric. */
    private static final class Family {
        private final String name;
        private final String help;
        private final CounterSnapshot.Builder counter;
        private final GaugeSnapshot.Builder gauge;
        private final SummarySnapshot.Builder summary;
        private int points;
        private Class<?> kind;

        Family(String name, MetricName first) {
            this.name = name;
            this.help = "Kafka's " + first.type() + " " + first.name();
            this.counter = CounterSnapshot.builder().name(name).help(help);
            this.gauge = GaugeSnapshot.builder().name(name).help(help);
            this.summary = SummarySnapshot.builder().name(name).help(help);
        }

        void add(Labels labels, Metric m) {
            if (m instanceof Meter meter) {
                if (accept(Meter.class)) {
                    counter.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().labels(labels)
                            .value((double) meter.getCount()).build());
                }
            } else if (m instanceof Gauge<?> g) {
                Object v = g.getValue();
                if (v instanceof Number n && accept(Gauge.class)) {
                    gauge.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(labels)
                            .value(n.doubleValue()).build());
                }
            } else if (m instanceof Timer t) {
                if (accept(Histogram.class)) {
                    summary.dataPoint(summaryPoint(labels, t, t.getSnapshot(), NANOS_PER_MS));
                }
            } else if (m instanceof Histogram h) {
                if (accept(Histogram.class)) {
                    summary.dataPoint(summaryPoint(labels, h, h.getSnapshot(), 1));
                }
            }
        }

        private boolean accept(Class<?> k) {
            if (kind == null) {
                kind = k;
            }
            if (kind != k) {
                return false;
            }
            points++;
            return true;
        }

        private static SummarySnapshot.SummaryDataPointSnapshot summaryPoint(Labels labels, Counting c, Snapshot s,
                double divisor) {
            Quantiles.Builder q = Quantiles.builder();
            for (double quantile : QUANTILES) {
                q.quantile(new Quantile(quantile, s.getValue(quantile) / divisor));
            }
            long count = c.getCount();
            return SummarySnapshot.SummaryDataPointSnapshot.builder().labels(labels).quantiles(q.build())
                    .count(count).sum(s.getMean() / divisor * count).build();
        }

        MetricSnapshot build() {
            if (points == 0) {
                return null;
            }
            if (kind == Meter.class) {
                return counter.build();
            }
            return kind == Gauge.class ? gauge.build() : summary.build();
        }

        @Override
        public String toString() {
            return name;
        }
    }
}
