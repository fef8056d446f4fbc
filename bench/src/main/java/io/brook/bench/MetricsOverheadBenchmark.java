package io.brook.bench;

import io.brook.bench.cost.RawConnection;
import io.brook.server.Brook;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What recording metrics costs the broker's produce and fetch throughput: an embedded Brook
 * (in the benchmark's JVM, on loopback) answers Produce and Fetch requests, once with its metrics
 * recorded as in production ({@code recording=true}: the BrokerTopicMetrics meters the handlers
 * mark, the request metrics of every answer, the flush timings) and once with the hot path
 * recording nothing ({@code recording=false}, {@code Brook.Builder.metricsRecording(false)}).
 * Everything else is the same: the same request bytes, the same log, the same network path.
 * The cost of recording is {@code 1 - ops(true) / ops(false)} per benchmark; the target is at
 * most 2 %.
 * Its throughput error bars (7 to 26 % on two cores) are too wide to resolve that: the broker
 * CPU per request, paired round by round, is what {@code bench/run --metrics-cost}
 * ({@link io.brook.bench.cost.MetricsCost}) measures.
 *
 * <p>Each operation is one request and its answer over one connection per thread (so
 * {@code -t N} gives N connections): {@code produce} appends one batch of 10 records of 100
 * bytes with acks=1 (the answer does not wait for a force: the handler's share of the time is
 * the largest, so is the share of the metrics); {@code fetch} reads up to 64 KiB from the start
 * of a partition filled beforehand. Old segments are deleted by size retention so that long runs
 * do not fill the disk.
 *
 * <p>Run on a quiet machine, after {@code mvn -B -q -pl testkit,wire,storage,coordinator,server,bench
 * package -DskipTests}:
 * <pre>java -jar bench/target/benchmarks.jar MetricsOverheadBenchmark</pre>
 * (two parameter values × two benchmarks × three forks × (5 + 10) two-second iterations, and a
 * broker start per fork: about 8 minutes; add {@code -t 2} for two connections, or
 * {@code -f 1 -wi 1 -i 1 -w 2 -r 2} for a check that it works, under a minute). Compare each
 * benchmark's two scores and their error bars: a difference within the error says the cost is
 * below what the run can resolve.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 10, time = 2)
@Fork(3)
public class MetricsOverheadBenchmark {

    private static final String TOPIC = "metrics-overhead";
    private static final int RECORDS_PER_BATCH = 10;
    private static final int RECORD_BYTES = 100;
    private static final int FETCH_BYTES = 64 * 1024;
    /** Batches written before the run, so that a fetch finds a full 64 KiB. */
    private static final int PREFILL_BATCHES = 200;
    private static final short PRODUCE_VERSION = 11; // topics by name (v13 names them by id)
    private static final short FETCH_VERSION = 12;
    private static final String CLIENT_ID = "bench";

    /** Whether the broker records its metrics on the hot path. */
    @Param({"true", "false"})
    public boolean recording;

    private Path dir;
    private Brook brook;
    private String bootstrap;

    @Setup(Level.Trial)
    public void start() throws Exception {
        dir = Files.createTempDirectory("brook-metrics-overhead");
        brook = Brook.builder().port(0).dataDir(dir.resolve("data")).metricsRecording(recording)
                .config("log.retention.check.interval.ms", "5000")
                .start();
        bootstrap = brook.bootstrapServers();
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(p)) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1).configs(Map.of(
                    "retention.bytes", Long.toString(256L << 20), "segment.bytes", Long.toString(64L << 20)))))
                    .all().get(30, TimeUnit.SECONDS);
        }
        try (Connection c = new Connection()) {
            c.open(bootstrap);
            for (int i = 0; i < PREFILL_BATCHES; i++) {
                c.roundTrip(c.produce);
                c.check(ApiKeys.PRODUCE, PRODUCE_VERSION);
            }
            c.roundTrip(c.fetch);
            c.check(ApiKeys.FETCH, FETCH_VERSION);
        }
    }

    @TearDown(Level.Trial)
    public void stop() throws IOException {
        if (brook != null) {
            brook.close();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(f);
            }
        }
    }

    /** One thread's connection and its request frames. */
    @State(Scope.Thread)
    public static class Connection implements AutoCloseable {
        private RawConnection raw;
        final byte[] produce = RawConnection.frame(CLIENT_ID, ApiKeys.PRODUCE, PRODUCE_VERSION, produceRequest());
        final byte[] fetch = RawConnection.frame(CLIENT_ID, ApiKeys.FETCH, FETCH_VERSION, fetchRequest());

        @Setup(Level.Trial)
        public void connect(MetricsOverheadBenchmark b) throws IOException {
            open(b.bootstrap);
        }

        void open(String bootstrap) throws IOException {
            raw = new RawConnection(bootstrap);
        }

        /** Sends one request frame and reads its answer; returns the answer's length. */
        int roundTrip(byte[] frame) throws IOException {
            return raw.roundTrip(frame);
        }

        /** Fails unless the last answer has no error. */
        void check(ApiKeys key, short version) {
            raw.check(key, version);
        }

        @Override
        @TearDown(Level.Trial)
        public void close() throws IOException {
            if (raw != null) {
                raw.close();
            }
        }

        private static ApiMessage produceRequest() {
            SimpleRecord[] records = new SimpleRecord[RECORDS_PER_BATCH];
            for (int i = 0; i < records.length; i++) {
                records[i] = new SimpleRecord(new byte[RECORD_BYTES]);
            }
            ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
            topics.add(new ProduceRequestData.TopicProduceData().setName(TOPIC).setPartitionData(List.of(
                    new ProduceRequestData.PartitionProduceData().setIndex(0)
                            .setRecords(MemoryRecords.withRecords(Compression.NONE, records)))));
            return new ProduceRequestData().setAcks((short) 1).setTimeoutMs(30_000).setTopicData(topics);
        }

        private static ApiMessage fetchRequest() {
            return new FetchRequestData().setReplicaId(-1).setMaxWaitMs(0).setMinBytes(1).setMaxBytes(FETCH_BYTES)
                    .setIsolationLevel((byte) 0).setSessionId(0).setSessionEpoch(-1)
                    .setTopics(List.of(new FetchRequestData.FetchTopic().setTopic(TOPIC).setPartitions(List.of(
                            new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(0)
                                    .setPartitionMaxBytes(FETCH_BYTES)))));
        }
    }

    @Benchmark
    public int produce(Connection c) throws IOException {
        return c.roundTrip(c.produce);
    }

    @Benchmark
    public int fetch(Connection c) throws IOException {
        return c.roundTrip(c.fetch);
    }
}
