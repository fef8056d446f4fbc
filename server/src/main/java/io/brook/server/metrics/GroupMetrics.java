package io.brook.server.metrics;

import io.brook.coordinator.group.GroupsSnapshot;
import io.brook.storage.FileRecords;
import io.brook.storage.Log;
import io.brook.storage.LogReadResult;
import io.brook.wire.protocol.Errors;
import io.brook.wire.record.RecordBatch;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The group coordinator's gauges under Kafka's names
 * ({@code kafka.coordinator.group:type=GroupMetadataManager}: {@code NumGroups},
 * {@code NumGroupsStable}, ..., {@code NumOffsets}) and consumer lag computed by the broker, so
 * that no Burrow is needed:
 *
 * <ul>
 *   <li>{@code brook.consumer:type=ConsumerLag,name=RecordsLag,group=G,topic=T,partition=P}: the
 *       partition's high watermark minus the group's committed offset (0 when it is ahead);</li>
 *   <li>{@code ...,name=TimeLagMs,...}: how old the first unconsumed record is: now minus the
 *       first timestamp of the batch holding the committed offset (exact to within a batch), 0
 *       when nothing is left to consume;</li>
 *   <li>{@code ...,name=RecordsLagSum,group=G}: the group's records lag over all its partitions.</li>
 * </ul>
 *
 * The numbers come from a snapshot the coordinator takes on its own thread; a reading older than
 * {@link #MAX_AGE_MS} asks for a new one and waits for it (at most {@link #WAIT_MS}), so a scrape
 * or a JMX read costs one snapshot per second at most, and never runs on an event loop. The lag
 * gauges follow the groups: a partition's appear with its first commit, and leave with the
 * offset or the group.
 */
public final class GroupMetrics {

    private static final Logger LOG = LoggerFactory.getLogger(GroupMetrics.class);
    static final long MAX_AGE_MS = 1_000;
    static final long WAIT_MS = 2_000;
    private static final String DOMAIN = "kafka.coordinator.group";
    private static final String TYPE = "GroupMetadataManager";
    /** Between the parts of a lag key: no group id or topic name holds it. */
    private static final char SEP = '\0';

    private final BrokerMetrics metrics;
    private final Supplier<CompletableFuture<GroupsSnapshot>> source;
    private final BiFunction<String, Integer, Log> logs;
    private final Clock clock;
    private volatile Reading last = new Reading(new GroupsSnapshot(java.util.List.of()), Map.of(), Map.of(), Long.MIN_VALUE);
    /** The lag gauges registered, by group, topic and partition (by group for the sums); under this. */
    private final Map<String, MetricName[]> registered = new HashMap<>();

    private GroupMetrics(BrokerMetrics metrics, Supplier<CompletableFuture<GroupsSnapshot>> source,
            BiFunction<String, Integer, Log> logs, Clock clock) {
        this.metrics = metrics;
        this.source = source;
        this.logs = logs;
        this.clock = clock;
    }

    /**
     * Registers the group gauges: {@code source} takes a snapshot on the coordinator's thread,
     * {@code logs} finds a partition's log (null when there is none), {@code clock} dates the lag.
     */
    public static GroupMetrics register(BrokerMetrics metrics, Supplier<CompletableFuture<GroupsSnapshot>> source,
            BiFunction<String, Integer, Log> logs, Clock clock) {
        GroupMetrics g = new GroupMetrics(metrics, source, logs, clock);
        metrics.gauge(MetricName.of(DOMAIN, TYPE, "NumGroups"), () -> g.current().snapshot.groups().size());
        metrics.gauge(MetricName.of(DOMAIN, TYPE, "NumOffsets"), () -> g.current().snapshot.offsetCount());
        for (String[] s : new String[][] {
            {"NumGroupsPreparingRebalance", "PreparingRebalance"}, {"NumGroupsCompletingRebalance", "CompletingRebalance"},
            {"NumGroupsStable", "Stable"}, {"NumGroupsDead", "Dead"}, {"NumGroupsEmpty", "Empty"}}) {
            String state = s[1];
            metrics.gauge(MetricName.of(DOMAIN, TYPE, s[0]), () -> g.current().snapshot.countInState(state));
        }
        metrics.groups(g);
        return g;
    }

    /** One snapshot and the lag computed from it. */
    record Reading(GroupsSnapshot snapshot, Map<String, Long> recordsLag, Map<String, Long> timeLagMs, long takenMs) {
    }

    /** The latest reading, refreshed first if it is older than {@link #MAX_AGE_MS}. */
    Reading current() {
        Reading r = last;
        if (fresh(r)) {
            return r;
        }
        synchronized (this) {
            r = last;
            if (fresh(r)) {
                return r;
            }
            try {
                GroupsSnapshot s = source.get().get(WAIT_MS, TimeUnit.MILLISECONDS);
                r = compute(s);
                last = r;
                follow(r);
            } catch (ExecutionException | TimeoutException e) {
                LOG.debug("No group snapshot for the metrics: {}", e.toString());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return r;
        }
    }

    /** The records lag of a group's partition in the latest reading, or -1 (tests and the console). */
    public long recordsLag(String group, String topic, int partition) {
        return current().recordsLag.getOrDefault(key(group, topic, partition), -1L);
    }

    private boolean fresh(Reading r) {
        return r.takenMs != Long.MIN_VALUE && monotonicMs() - r.takenMs < MAX_AGE_MS;
    }

    private long monotonicMs() {
        return System.nanoTime() / 1_000_000;
    }

    private Reading compute(GroupsSnapshot s) {
        Map<String, Long> records = new HashMap<>();
        Map<String, Long> time = new HashMap<>();
        long now = clock.millis();
        for (GroupsSnapshot.Group g : s.groups()) {
            for (GroupsSnapshot.CommittedOffset o : g.offsets()) {
                Log log = logs.apply(o.topic(), o.partition());
                if (log == null) {
                    continue;
                }
                long hw = log.highWatermark();
                long lag = Math.max(0, hw - o.offset());
                String k = key(g.groupId(), o.topic(), o.partition());
                records.put(k, lag);
                time.put(k, lag == 0 ? 0 : Math.max(0, now - firstTimestamp(log, o.offset(), now)));
            }
        }
        return new Reading(s, records, time, monotonicMs());
    }

    /** The first timestamp of the batch holding {@code offset}, or {@code now} when it cannot be read. */
    private static long firstTimestamp(Log log, long offset, long now) {
        LogReadResult r = log.read(offset, RecordBatch.HEADER_SIZE, true);
        FileRecords records = r.records();
        if (r.error() != Errors.NONE || records == null || records.sizeInBytes() < RecordBatch.HEADER_SIZE) {
            return now;
        }
        ByteBuffer header = ByteBuffer.allocate(RecordBatch.HEADER_SIZE);
        try {
            // the header only (the slice holds at least one whole batch, which may be large)
            while (header.hasRemaining()) {
                if (records.channel().read(header, records.position() + header.position()) < 0) {
                    return now;
                }
            }
        } catch (IOException e) {
            return now;
        }
        header.flip();
        return new RecordBatch().wrap(header, 0).baseTimestamp();
    }

    /** Registers the lag gauges of new partitions and groups, removes those gone. Under this. */
    private void follow(Reading r) {
        Map<String, MetricName[]> wanted = new HashMap<>();
        for (GroupsSnapshot.Group g : r.snapshot.groups()) {
            for (GroupsSnapshot.CommittedOffset o : g.offsets()) {
                String k = key(g.groupId(), o.topic(), o.partition());
                if (!r.recordsLag.containsKey(k)) {
                    continue;
                }
                String p = Integer.toString(o.partition());
                wanted.put(k, new MetricName[] {
                    MetricName.of("brook.consumer", "ConsumerLag", "RecordsLag", "group", g.groupId(), "topic", o.topic(),
                            "partition", p),
                    MetricName.of("brook.consumer", "ConsumerLag", "TimeLagMs", "group", g.groupId(), "topic", o.topic(),
                            "partition", p),
                });
            }
            if (!g.offsets().isEmpty()) {
                wanted.put(g.groupId(), new MetricName[] {
                    MetricName.of("brook.consumer", "ConsumerLag", "RecordsLagSum", "group", g.groupId()),
                });
            }
        }
        registered.entrySet().removeIf(e -> {
            if (!wanted.containsKey(e.getKey())) {
                for (MetricName n : e.getValue()) {
                    metrics.remove(n);
                }
                return true;
            }
            return false;
        });
        for (Map.Entry<String, MetricName[]> e : wanted.entrySet()) {
            if (registered.containsKey(e.getKey())) {
                continue;
            }
            String k = e.getKey();
            MetricName[] names = e.getValue();
            if (names.length == 2) {
                metrics.gauge(names[0], () -> current().recordsLag.getOrDefault(k, 0L));
                metrics.gauge(names[1], () -> current().timeLagMs.getOrDefault(k, 0L));
            } else {
                String prefix = k + SEP;
                metrics.gauge(names[0], () -> {
                    long sum = 0;
                    for (Map.Entry<String, Long> lag : current().recordsLag.entrySet()) {
                        if (lag.getKey().startsWith(prefix)) {
                            sum += lag.getValue();
                        }
                    }
                    return sum;
                });
            }
            registered.put(k, names);
        }
    }

    private static String key(String group, String topic, int partition) {
        return group + SEP + topic + SEP + partition;
    }
}
