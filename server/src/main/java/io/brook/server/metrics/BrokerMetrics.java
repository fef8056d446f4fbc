package io.brook.server.metrics;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.LockFreeExponentiallyDecayingReservoir;
import com.codahale.metrics.Meter;
import com.codahale.metrics.Metric;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import com.codahale.metrics.jmx.JmxReporter;
import io.brook.storage.FlushObserver;
import io.brook.storage.Log;
import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.ApiMessage;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/**
 * The broker's metrics: one Dropwizard {@link MetricRegistry} keyed by Kafka's JMX names
 * ({@link MetricName}), published as MBeans on the platform MBean server (metrics-jmx's reporter,
 * whose attributes are those of Kafka's Yammer metrics: {@code Count}, {@code OneMinuteRate},
 * {@code 99thPercentile}, {@code Value}...) and as Prometheus text ({@link PrometheusText}).
 *
 * <p>What it holds:
 * <ul>
 *   <li>{@code kafka.server:type=BrokerTopicMetrics}, broker-wide and per topic ({@link #topic});</li>
 *   <li>{@code kafka.network:type=RequestMetrics} per request type ({@link RequestMetrics});</li>
 *   <li>{@code kafka.log:type=Log} per partition, kept in step with the logs by {@link #syncLogs};</li>
 *   <li>{@code kafka.server:type=ReplicaManager} (OfflineReplicaCount: logs an I/O failure took
 *       offline), {@code kafka.log:type=LogManager,name=OfflineLogDirectoryCount} and
 *       {@code kafka.server:type=KafkaServer,name=BrokerState};</li>
 *   <li>{@code kafka.log:type=LogFlushStats,name=LogFlushRateAndTimeMs} (forces per second and
 *       their duration) and Brook's own {@code brook.log:type=GroupCommit} (offsets per force,
 *       bytes not yet durable);</li>
 *   <li>the group coordinator's gauges and consumer lag ({@link GroupMetrics});</li>
 *   <li>connections per listener and start-up durations.</li>
 * </ul>
 *
 * <p>Hot path: handlers mark meters of objects they hold (a topic's {@link TopicMetrics} is
 * created once and found again with one map lookup per topic and request, never per record);
 * a meter is two striped {@code LongAdder}s ({@link StampedMeter}), so marking it neither locks
 * nor allocates, and the meters of one call share one clock reading.
 * Histograms use a lock-free exponentially decaying reservoir biased to the last five minutes,
 * as Kafka's do; a request's six time histograms share one ({@link RequestTimes}).
 *
 * <p>A dedicated controller ({@code process.roles=controller}) has an instance of its own
 * ({@link #controllerNode}) that holds only the controller gauges.
 *
 * <p>Several brokers in one JVM (tests) share the platform MBean server: the first one to
 * register a name keeps it, the others' MBeans of that name are not published (their metrics
 * still count, and Prometheus shows each broker's own).
 */
public final class BrokerMetrics implements AutoCloseable {

    /** Kafka's {@code BrokerState} values (org.apache.kafka.metadata.BrokerState). */
    public static final int NOT_RUNNING = 0;
    public static final int STARTING = 1;
    public static final int RECOVERY = 2;
    public static final int RUNNING = 3;
    public static final int PENDING_CONTROLLED_SHUTDOWN = 6;
    public static final int SHUTTING_DOWN = 7;

    private final MetricRegistry registry = new MetricRegistry();
    private final ConcurrentMap<String, MetricName> names = new ConcurrentHashMap<>();
    private final boolean jmxEnabled;
    private final boolean recording;
    /** What handlers mark when not {@link #recording}: meters that count nothing. */
    private final TopicMetrics notRecorded;
    private JmxReporter jmx;
    private boolean closed;
    private final TopicMetrics allTopics;
    private final ConcurrentMap<String, TopicMetrics> topics = new ConcurrentHashMap<>();
    private final RequestMetrics requests;
    private final Timer flushes;
    private final Histogram groupCommitOffsets;
    private final Map<String, PartitionGauges> partitions = new HashMap<>();
    private volatile Collection<Log> logs = java.util.List.of();
    private volatile int brokerState = STARTING;
    private volatile long startupMs = -1;
    private volatile long logRecoveryMs = -1;
    private volatile GroupMetrics groups;
    private volatile java.util.function.Supplier<java.util.List<io.prometheus.metrics.model.snapshots.MetricSnapshot>>
            clientMetrics = java.util.List::of;

    public BrokerMetrics(boolean jmxEnabled) {
        this(jmxEnabled, true);
    }

    /**
     * {@code recording} false: the hot path records nothing (the BrokerTopicMetrics handlers
     * mark, the request metrics, the flush timings), which only a benchmark wants, to measure
     * what recording costs (bench's {@code MetricsOverheadBenchmark}); gauges still read what
     * they read when asked.
     */
    public BrokerMetrics(boolean jmxEnabled, boolean recording) {
        this(jmxEnabled, recording, true);
    }

    /**
     * The metrics of a dedicated controller ({@code process.roles=controller}): none of a broker's
     * (no topic, request, log, flush or broker-state metrics: it serves no client and keeps no
     * partition log) until {@link #controller} adds the controller gauges. Published as a
     * broker's are.
     */
    public static BrokerMetrics controllerNode(boolean jmxEnabled) {
        return new BrokerMetrics(jmxEnabled, false, false);
    }

    private BrokerMetrics(boolean jmxEnabled, boolean recording, boolean broker) {
        this.recording = recording;
        this.notRecorded = recording ? null : new TopicMetrics(notRecordingMeters(), null);
        this.allTopics = new TopicMetrics(broker ? topicMeters(null) : notRecordingMeters(), null);
        this.requests = new RequestMetrics(this);
        Timer flushTimer = new Timer(LockFreeExponentiallyDecayingReservoir.builder().build());
        this.flushes = broker ? register(MetricName.of("kafka.log", "LogFlushStats", "LogFlushRateAndTimeMs"),
                flushTimer) : flushTimer;
        this.jmxEnabled = jmxEnabled;
        if (!broker) {
            this.groupCommitOffsets = new Histogram(LockFreeExponentiallyDecayingReservoir.builder().build());
            return;
        }
        this.groupCommitOffsets = histogram(MetricName.of("brook.log", "GroupCommit", "OffsetsPerForce"));
        gauge(MetricName.of("brook.log", "GroupCommit", "BytesNotDurable"), () -> {
            long n = 0;
            for (Log l : logs) {
                n += l.bytesNotDurable();
            }
            return n;
        });
        gauge(MetricName.of("kafka.server", "KafkaServer", "BrokerState"), () -> brokerState);
        gauge(MetricName.of("kafka.server", "ReplicaManager", "PartitionCount"), () -> logs.size());
        gauge(MetricName.of("kafka.server", "ReplicaManager", "LeaderCount"), () -> logs.size());
        // one replica per partition, always in sync with itself
        gauge(MetricName.of("kafka.server", "ReplicaManager", "UnderReplicatedPartitions"), () -> 0);
        gauge(MetricName.of("kafka.server", "ReplicaManager", "UnderMinIsrPartitionCount"), () -> 0);
        gauge(MetricName.of("kafka.server", "ReplicaManager", "OfflineReplicaCount"), this::offlineLogs);
        // Kafka takes a whole directory offline on an I/O error, Brook only the log that met it:
        // the data directory counts as offline once one of its logs is, so that alerts fire alike
        gauge(MetricName.of("kafka.log", "LogManager", "OfflineLogDirectoryCount"), () -> offlineLogs() > 0 ? 1 : 0);
        gauge(MetricName.of("brook.server", "Startup", "StartupTimeMs"), () -> startupMs);
        gauge(MetricName.of("brook.server", "Startup", "LogRecoveryTimeMs"), () -> logRecoveryMs);
    }

    /**
     * Publishes the metrics as MBeans on the platform MBean server (the ones registered later
     * follow at once); nothing when built without JMX, when already published, or once closed.
     * The first use of the platform MBean server sets up every platform MXBean of the JVM (tens
     * of milliseconds), so the broker calls this on a thread of its own once it serves, keeping
     * that work out of its start-up.
     */
    public synchronized void publishJmx() {
        if (!jmxEnabled || jmx != null || closed) {
            return;
        }
        jmx = JmxReporter.forRegistry(registry)
                .createsObjectNamesWith((type, domain, name) -> objectName(name))
                .convertDurationsTo(TimeUnit.MILLISECONDS)
                .convertRatesTo(TimeUnit.SECONDS)
                .build();
        jmx.start();
    }

    // ------------------------------------------------------------------ what handlers mark

    /** The broker-wide BrokerTopicMetrics (no topic tag). */
    public TopicMetrics allTopics() {
        return recording ? allTopics : notRecorded;
    }

    /** A topic's BrokerTopicMetrics, created on first use; its marks also count broker-wide. */
    public TopicMetrics topic(String name) {
        if (!recording) {
            return notRecorded;
        }
        TopicMetrics t = topics.get(name);
        if (t == null) {
            t = topics.computeIfAbsent(name, n -> new TopicMetrics(topicMeters(n), allTopics));
        }
        return t;
    }

    /** Forgets a deleted topic's metrics. */
    public void topicDeleted(String name) {
        if (topics.remove(name) != null) {
            for (String m : TopicMetrics.NAMES) {
                remove(MetricName.of("kafka.server", "BrokerTopicMetrics", m, "topic", name));
            }
        }
    }

    /** A request was answered; the times are {@link System#nanoTime()}s (see {@link RequestMetrics}). */
    public void requestAnswered(ApiKey key, short version, long received, long started, long handled, long completed,
            long writing, long written, boolean failed, ApiMessage response) {
        if (!recording) {
            return;
        }
        requests.answered(key, version, received, started, handled, completed, writing, written, failed, response);
    }

    /** How many requests of this type were answered since start-up. */
    public long requestsAnswered(ApiKey key) {
        return requests.count(key);
    }

    /** The storage's group commit: told of each force (for {@code LogManagerOptions.flushObserver}). */
    public FlushObserver flushObserver() {
        if (!recording) {
            return (nanos, offsets) -> { };
        }
        return (nanos, offsets) -> {
            flushes.update(nanos, TimeUnit.NANOSECONDS);
            groupCommitOffsets.update(offsets);
        };
    }

    /** The group gauges and consumer lag, once registered (null before). */
    public GroupMetrics groups() {
        return groups;
    }

    void groups(GroupMetrics g) {
        this.groups = g;
    }

    /**
     * Where the Prometheus endpoint gets the metrics clients pushed (KIP-714), families whose
     * names are not the broker's own; none until set.
     */
    public void clientMetrics(
            java.util.function.Supplier<java.util.List<io.prometheus.metrics.model.snapshots.MetricSnapshot>> source) {
        this.clientMetrics = source;
    }

    java.util.List<io.prometheus.metrics.model.snapshots.MetricSnapshot> clientMetrics() {
        return clientMetrics.get();
    }

    // ------------------------------------------------------------------ broker state

    public void brokerState(int state) {
        this.brokerState = state;
    }

    public int brokerState() {
        return brokerState;
    }

    public void startupTime(long millis) {
        this.startupMs = millis;
    }

    public void logRecoveryTime(long millis) {
        this.logRecoveryMs = millis;
    }

    /**
     * Kafka's controller gauges ({@code kafka.controller:type=KafkaController}: ActiveControllerCount,
     * ActiveBrokerCount, FencedBrokerCount, GlobalTopicCount, GlobalPartitionCount,
     * OfflinePartitionsCount), each read from {@code counts} when asked. Kafka has them on every
     * node with the controller role; a single Brook is its own controller.
     */
    public void controller(Supplier<ControllerCounts> counts) {
        controllerGauge("ActiveControllerCount", counts, ControllerCounts::activeControllers);
        controllerGauge("ActiveBrokerCount", counts, ControllerCounts::activeBrokers);
        controllerGauge("FencedBrokerCount", counts, ControllerCounts::fencedBrokers);
        controllerGauge("GlobalTopicCount", counts, ControllerCounts::topics);
        controllerGauge("GlobalPartitionCount", counts, ControllerCounts::partitions);
        controllerGauge("OfflinePartitionsCount", counts, ControllerCounts::offlinePartitions);
    }

    /**
     * The controller gauges of a single node: the active controller and the only broker; its
     * partitions are its logs, and a log an I/O error took offline is a partition without a
     * leader. {@code topics} counts the topics.
     */
    public void singleNodeController(IntSupplier topics) {
        controller(() -> new ControllerCounts(1, 1, 0, topics.getAsInt(), logs.size(), offlineLogs()));
    }

    private void controllerGauge(String name, Supplier<ControllerCounts> counts, ToIntFunction<ControllerCounts> field) {
        gauge(MetricName.of("kafka.controller", "KafkaController", name), () -> field.applyAsInt(counts.get()));
    }

    /** The open connections of a listener, read when asked. */
    public void listenerConnections(String listener, IntSupplier count) {
        gauge(MetricName.of("kafka.server", "socket-server-metrics", "connection-count", "listener", listener),
                count::getAsInt);
    }

    /**
     * Brings the {@code kafka.log:type=Log} gauges in step with {@code current}, every partition
     * log of the broker: registers those of new logs, removes those of logs gone.
     */
    public synchronized void syncLogs(Collection<Log> current) {
        Map<String, Log> now = new HashMap<>();
        for (Log l : current) {
            now.put(l.topic() + "-" + l.partition(), l);
        }
        partitions.entrySet().removeIf(e -> {
            if (now.get(e.getKey()) != e.getValue().log) {
                e.getValue().unregister();
                return true;
            }
            return false;
        });
        for (Map.Entry<String, Log> e : now.entrySet()) {
            partitions.computeIfAbsent(e.getKey(), k -> new PartitionGauges(e.getValue()));
        }
        this.logs = java.util.List.copyOf(current);
    }

    /** Partition logs an I/O failure took offline (they stay offline until a restart). */
    int offlineLogs() {
        int n = 0;
        for (Log l : logs) {
            if (l.isOffline()) {
                n++;
            }
        }
        return n;
    }

    /** Every partition log the metrics know of (last {@link #syncLogs}). */
    Collection<Log> logs() {
        return logs;
    }

    private final class PartitionGauges {
        final Log log;
        private final MetricName[] names;

        PartitionGauges(Log log) {
            this.log = log;
            String t = log.topic();
            String p = Integer.toString(log.partition());
            names = new MetricName[] {
                MetricName.of("kafka.log", "Log", "Size", "topic", t, "partition", p),
                MetricName.of("kafka.log", "Log", "NumLogSegments", "topic", t, "partition", p),
                MetricName.of("kafka.log", "Log", "LogStartOffset", "topic", t, "partition", p),
                MetricName.of("kafka.log", "Log", "LogEndOffset", "topic", t, "partition", p),
            };
            gauge(names[0], log::sizeInBytes);
            gauge(names[1], log::segmentCount);
            gauge(names[2], log::logStartOffset);
            gauge(names[3], log::logEndOffset);
        }

        void unregister() {
            for (MetricName n : names) {
                remove(n);
            }
        }
    }

    // ------------------------------------------------------------------ the registry

    StampedMeter meter(MetricName name) {
        return register(name, new StampedMeter());
    }

    Histogram histogram(MetricName name) {
        return register(name, new Histogram(LockFreeExponentiallyDecayingReservoir.builder().build()));
    }

    /** Registers a histogram fed by other means than its own {@code update} (see {@link RequestTimes}). */
    Histogram histogram(MetricName name, Histogram histogram) {
        return register(name, histogram);
    }

    <T> Gauge<T> gauge(MetricName name, Gauge<T> gauge) {
        return register(name, gauge);
    }

    @SuppressWarnings("unchecked")
    private <M extends Metric> M register(MetricName name, M metric) {
        names.put(name.objectName(), name);
        Metric existing = registry.getMetrics().get(name.objectName());
        if (existing != null) {
            return (M) existing;
        }
        try {
            return registry.register(name.objectName(), metric);
        } catch (IllegalArgumentException raced) {
            return (M) registry.getMetrics().get(name.objectName());
        }
    }

    void remove(MetricName name) {
        registry.remove(name.objectName());
        names.remove(name.objectName());
    }

    MetricRegistry registry() {
        return registry;
    }

    /** The Kafka name of a registry entry. */
    MetricName nameOf(String key) {
        return names.get(key);
    }

    private static StampedMeter[] notRecordingMeters() {
        StampedMeter[] meters = new StampedMeter[TopicMetrics.NAMES.length];
        for (int i = 0; i < meters.length; i++) {
            meters[i] = new StampedMeter() {
                @Override
                void mark(long n, long nowNanos) {
                    // not recording
                }
            };
        }
        return meters;
    }

    private StampedMeter[] topicMeters(String topic) {
        StampedMeter[] meters = new StampedMeter[TopicMetrics.NAMES.length];
        for (int i = 0; i < meters.length; i++) {
            MetricName n = topic == null
                    ? MetricName.of("kafka.server", "BrokerTopicMetrics", TopicMetrics.NAMES[i])
                    : MetricName.of("kafka.server", "BrokerTopicMetrics", TopicMetrics.NAMES[i], "topic", topic);
            meters[i] = meter(n);
        }
        return meters;
    }

    private static ObjectName objectName(String name) {
        try {
            return new ObjectName(name);
        } catch (MalformedObjectNameException e) {
            throw new IllegalArgumentException("not a JMX name: " + name, e);
        }
    }

    /** Unpublishes the MBeans. */
    @Override
    public synchronized void close() {
        brokerState = NOT_RUNNING;
        closed = true;
        if (jmx != null) {
            jmx.close();
        }
    }
}
