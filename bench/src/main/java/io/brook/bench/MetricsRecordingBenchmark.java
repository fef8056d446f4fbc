package io.brook.bench;

import io.brook.server.HotPathMetrics;
import io.brook.wire.message.FetchResponse;
import io.brook.wire.message.ProduceResponse;
import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.BufferRecords;
import io.brook.wire.record.RecordBatch;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What recording metrics costs one request, in nanoseconds, measured directly: each operation
 * makes exactly the metric recordings the broker makes for one request of a
 * {@code bench/run --metrics-cost} workload ({@link io.brook.bench.cost.MetricsCost}), through
 * the broker's own metric classes ({@link HotPathMetrics}: the BrokerTopicMetrics meters the
 * handlers mark per partition, the request metrics of the answer, the group commit's flush
 * timings), with the clock readings that serve them:
 *
 * <ul>
 *   <li>{@code produce8x16KiB}: a Produce of 8 partitions × one 16 KiB batch of 100 B records
 *       to one topic: 8 × the handler's partition meters, and the request metrics of an answer
 *       of 8 partitions;</li>
 *   <li>{@code produce1x10}: a Produce of 10 records of 100 B to one partition;</li>
 *   <li>{@code fetch64KiB}: a Fetch of one partition answering 64 KiB;</li>
 *   <li>{@code force}: the recording of one group-commit force ({@code LogFlushRateAndTimeMs},
 *       {@code OffsetsPerForce}), which the flusher makes per force of a partition's log, not per
 *       request: a produce adds at most one per partition (acks=all on an idle broker), and under
 *       load one force covers the appends of many requests (acks=1: forces follow the disk,
 *       not the requests).</li>
 * </ul>
 *
 * Every operation also reads the clock as the broker does for it: six times for a request's
 * path through the network layer (received, started, handled, completed, writing, written, of
 * which the first and the last two serve only the metrics; the others also the request quota)
 * and twice for a force (the flusher times a force only for the metrics). So the score with
 * {@code recording=true} is an upper bound of what metrics cost the request (plus, with acks=all,
 * up to one {@code force} per partition); with
 * {@code recording=false} the calls go where a broker built with
 * {@code Brook.Builder.metricsRecording(false)} sends them (what {@code bench/run --metrics-cost}
 * compares against), and the difference is what recording adds to that. Compare the score with
 * the broker's CPU per request of the same workload (docs/metrics.md).
 *
 * <p>All threads record into one set of metrics, as the broker's event loops, I/O threads and
 * flushers do: {@code -t 2} measures the contention on the shared meters and sample.
 *
 * <p>Run, after {@code mvn -B -q -pl testkit,wire,storage,coordinator,cluster,server,bench
 * package -DskipTests}:
 * <pre>java -jar bench/target/benchmarks.jar MetricsRecordingBenchmark -t 1 -prof io.brook.bench.ThreadCpuProfiler
 * java -jar bench/target/benchmarks.jar MetricsRecordingBenchmark -t 2 -prof io.brook.bench.ThreadCpuProfiler</pre>
 * (each about a minute and a half; add {@code -prof gc} to see that nothing is allocated). On a
 * shared machine read {@code cpu.time.norm} ({@link ThreadCpuProfiler}: the CPU time of the
 * benchmark's threads per operation) rather than the wall-clock score, which grows with every
 * moment a thread waits for a core.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class MetricsRecordingBenchmark {

    static final String TOPIC = "metrics-recording";
    static final short PRODUCE_VERSION = 11;
    static final short FETCH_VERSION = 12;
    static final int PARTITIONS = 8;
    static final int RECORD_BYTES = 100;
    static final int FETCH_BYTES = 64 * 1024;
    /** A force's duration as recorded: the value does not change the cost. */
    private static final long FORCE_NANOS = 2_000_000;

    /** Whether the metrics record (as in production) or not ({@code Brook.Builder.metricsRecording(false)}). */
    @Param({"true", "false"})
    public boolean recording;

    HotPathMetrics metrics;

    @Setup
    public void setUp() {
        metrics = new HotPathMetrics(recording);
    }

    /** One thread's requests and answers, built once (the broker builds them per request, without metrics). */
    @State(Scope.Thread)
    public static class Requests {
        /** The 16 KiB batch of each of the 8 partitions. */
        final BufferRecords[] large = new BufferRecords[PARTITIONS];
        final RecordBatch[] largeBatches = new RecordBatch[PARTITIONS];
        final BufferRecords small = records(10);
        final RecordBatch smallBatch = new RecordBatch().wrap(small.buffer(), 0);
        final ProduceResponse largeAnswer = produceAnswer(PARTITIONS);
        final ProduceResponse smallAnswer = produceAnswer(1);
        final FetchResponse.PartitionData fetched = new FetchResponse.PartitionData().partitionIndex(0)
                .highWatermark(1_000_000).records(BufferRecords.wrap(ByteBuffer.allocate(FETCH_BYTES)));
        final FetchResponse fetchAnswer = new FetchResponse().responses(List.of(
                new FetchResponse.FetchableTopicResponse().topic(TOPIC).partitions(List.of(fetched))));
        final int largeRecords;

        public Requests() {
            int n = 16 * 1024 / RECORD_BYTES;
            BufferRecords r = records(n);
            while (r.sizeInBytes() > 16 * 1024) {
                r = records(--n);
            }
            largeRecords = n;
            for (int p = 0; p < PARTITIONS; p++) {
                large[p] = BufferRecords.wrap(r.buffer());
                largeBatches[p] = new RecordBatch().wrap(large[p].buffer(), 0);
            }
        }

        private static BufferRecords records(int count) {
            SimpleRecord[] records = new SimpleRecord[count];
            for (int i = 0; i < count; i++) {
                records[i] = new SimpleRecord(new byte[RECORD_BYTES]);
            }
            return BufferRecords.wrap(MemoryRecords.withRecords(Compression.NONE, records).buffer());
        }

        private static ProduceResponse produceAnswer(int partitions) {
            List<ProduceResponse.PartitionProduceResponse> parts = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                parts.add(new ProduceResponse.PartitionProduceResponse().index(p).baseOffset(1000L * p)
                        .logStartOffset(0));
            }
            return new ProduceResponse().responses(List.of(
                    new ProduceResponse.TopicProduceResponse().name(TOPIC).partitionResponses(parts)));
        }
    }

    @Benchmark
    public void produce8x16KiB(Requests r) {
        long received = System.nanoTime();
        long started = System.nanoTime();
        for (int p = 0; p < PARTITIONS; p++) {
            metrics.produced(TOPIC, r.large[p], r.largeBatches[p], (short) 0);
        }
        long handled = System.nanoTime();
        long completed = System.nanoTime();
        long writing = System.nanoTime();
        long written = System.nanoTime();
        metrics.answered(ApiKey.PRODUCE, PRODUCE_VERSION, received, started, handled, completed, writing, written,
                r.largeAnswer);
    }

    @Benchmark
    public void produce1x10(Requests r) {
        long received = System.nanoTime();
        long started = System.nanoTime();
        metrics.produced(TOPIC, r.small, r.smallBatch, (short) 0);
        long handled = System.nanoTime();
        long completed = System.nanoTime();
        long writing = System.nanoTime();
        long written = System.nanoTime();
        metrics.answered(ApiKey.PRODUCE, PRODUCE_VERSION, received, started, handled, completed, writing, written,
                r.smallAnswer);
    }

    @Benchmark
    public void fetch64KiB(Requests r) {
        long received = System.nanoTime();
        long started = System.nanoTime();
        metrics.fetched(TOPIC, r.fetched);
        long handled = System.nanoTime();
        long completed = System.nanoTime();
        long writing = System.nanoTime();
        long written = System.nanoTime();
        metrics.answered(ApiKey.FETCH, FETCH_VERSION, received, started, handled, completed, writing, written,
                r.fetchAnswer);
    }

    /** A force's recording and the flusher's two clock readings that time it. */
    @Benchmark
    public void force() {
        long t0 = System.nanoTime();
        long t1 = System.nanoTime();
        metrics.forced(t1 - t0 + FORCE_NANOS, 10);
    }
}
