package io.brook.bench;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.brook.wire.message.ApiMessages;
import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.ByteBufferWriter;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Decoding and re-encoding of the two messages that carry the data: a Produce request with 1 MiB
 * of records in one partition, and a Fetch response with 100 partitions (10 topics x 10) of one
 * small batch each. The input bytes are written by kafka-clients, so the same bytes feed our codec
 * and, as the baseline, kafka-clients' own generated classes ({@code *Kafka} benchmarks).
 *
 * <p>What to expect: our decoder leaves {@code records} as a slice of the input, so decoding the
 * Produce request costs the same for 1 KiB or 1 MiB of records; encoding into a heap buffer copies
 * the records once (a server writes them with a gathering or sendfile writer instead). Setup checks
 * that our re-encoding reproduces kafka-clients' bytes exactly, so the numbers are for correct work.
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar CodecBenchmark -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class CodecBenchmark {

    /** Newest versions Brook advertises (the server's handler table, io.brook.server.api.BrokerApis). */
    private static final short PRODUCE_VERSION = 12;
    private static final short FETCH_VERSION = 12;

    private static final int PRODUCE_RECORDS_BYTES = 1 << 20;
    private static final int FETCH_TOPICS = 10;
    private static final int FETCH_PARTITIONS_PER_TOPIC = 10;

    private ByteBuffer produceRequest;
    private ByteBuffer fetchResponse;
    private ByteBuffer out;

    @Setup(Level.Trial)
    public void setUp() {
        produceRequest = ByteBuffer.wrap(kafkaBytes(produceRequestData(), PRODUCE_VERSION));
        fetchResponse = ByteBuffer.wrap(kafkaBytes(fetchResponseData(), FETCH_VERSION));
        out = ByteBuffer.allocate(Math.max(produceRequest.capacity(), fetchResponse.capacity()));
        requireIdenticalReencoding(ApiMessages.readRequest(ApiKey.PRODUCE, PRODUCE_VERSION, produceRequest.duplicate()),
                PRODUCE_VERSION, produceRequest);
        requireIdenticalReencoding(ApiMessages.readResponse(ApiKey.FETCH, FETCH_VERSION, fetchResponse.duplicate()),
                FETCH_VERSION, fetchResponse);
    }

    @Benchmark
    public ApiMessage produceRequestDecode() {
        return ApiMessages.readRequest(ApiKey.PRODUCE, PRODUCE_VERSION, produceRequest.duplicate());
    }

    @Benchmark
    public ByteBuffer produceRequestDecodeEncode() {
        ApiMessage message = ApiMessages.readRequest(ApiKey.PRODUCE, PRODUCE_VERSION, produceRequest.duplicate());
        return encode(message, PRODUCE_VERSION);
    }

    @Benchmark
    public ProduceRequestData produceRequestDecodeKafka() {
        return new ProduceRequestData(new ByteBufferAccessor(produceRequest.duplicate()), PRODUCE_VERSION);
    }

    @Benchmark
    public ByteBuffer produceRequestDecodeEncodeKafka() {
        return encodeKafka(new ProduceRequestData(new ByteBufferAccessor(produceRequest.duplicate()), PRODUCE_VERSION),
                PRODUCE_VERSION);
    }

    @Benchmark
    public ApiMessage fetchResponseDecode() {
        return ApiMessages.readResponse(ApiKey.FETCH, FETCH_VERSION, fetchResponse.duplicate());
    }

    @Benchmark
    public ByteBuffer fetchResponseDecodeEncode() {
        ApiMessage message = ApiMessages.readResponse(ApiKey.FETCH, FETCH_VERSION, fetchResponse.duplicate());
        return encode(message, FETCH_VERSION);
    }

    @Benchmark
    public FetchResponseData fetchResponseDecodeKafka() {
        return new FetchResponseData(new ByteBufferAccessor(fetchResponse.duplicate()), FETCH_VERSION);
    }

    @Benchmark
    public ByteBuffer fetchResponseDecodeEncodeKafka() {
        return encodeKafka(new FetchResponseData(new ByteBufferAccessor(fetchResponse.duplicate()), FETCH_VERSION),
                FETCH_VERSION);
    }

    private ByteBuffer encode(ApiMessage message, short version) {
        out.clear();
        message.size(version); // a server needs the size first, for the frame's length prefix
        message.write(new ByteBufferWriter(out), version);
        return out;
    }

    private ByteBuffer encodeKafka(org.apache.kafka.common.protocol.ApiMessage message, short version) {
        out.clear();
        ObjectSerializationCache cache = new ObjectSerializationCache();
        message.size(cache, version);
        message.write(new ByteBufferAccessor(out), cache, version);
        return out;
    }

    private static void requireIdenticalReencoding(ApiMessage message, short version, ByteBuffer expected) {
        ByteBuffer actual = message.toByteBuffer(version);
        if (!actual.equals(expected.duplicate())) {
            throw new IllegalStateException(message.getClass().getSimpleName() + " v" + version
                    + ": our encoding differs from kafka-clients'; the benchmark would measure the wrong thing");
        }
    }

    private static byte[] kafkaBytes(org.apache.kafka.common.protocol.ApiMessage message, short version) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        ByteBuffer buffer = ByteBuffer.allocate(message.size(cache, version));
        message.write(new ByteBufferAccessor(buffer), cache, version);
        return buffer.array();
    }

    /** One topic, one partition, 1 MiB of uncompressed 1 KiB records in one batch. */
    static ProduceRequestData produceRequestData() {
        byte[] value = new byte[1024 - 40]; // ~40 bytes of record framing, key and header
        Arrays.fill(value, (byte) 'v');
        List<SimpleRecord> records = new ArrayList<>();
        int total = 61;
        for (int i = 0; total + 1024 <= PRODUCE_RECORDS_BYTES; i++) {
            records.add(new SimpleRecord(1_700_000_000_000L + i, ("key-" + i).getBytes(StandardCharsets.UTF_8), value));
            total += 1024;
        }
        MemoryRecords batch = MemoryRecords.withRecords(Compression.NONE, records.toArray(new SimpleRecord[0]));
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(new ProduceRequestData.TopicProduceData().setName("bench-produce")
                .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(batch))));
        return new ProduceRequestData().setAcks((short) -1).setTimeoutMs(30_000).setTransactionalId(null)
                .setTopicData(topics);
    }

    /** 10 topics x 10 partitions, each with one batch of 10 records of 100 bytes. */
    static FetchResponseData fetchResponseData() {
        byte[] value = new byte[100];
        Arrays.fill(value, (byte) 'f');
        List<FetchResponseData.FetchableTopicResponse> topics = new ArrayList<>();
        for (int t = 0; t < FETCH_TOPICS; t++) {
            List<FetchResponseData.PartitionData> partitions = new ArrayList<>();
            for (int p = 0; p < FETCH_PARTITIONS_PER_TOPIC; p++) {
                SimpleRecord[] records = new SimpleRecord[10];
                for (int i = 0; i < records.length; i++) {
                    records[i] = new SimpleRecord(1_700_000_000_000L + i, null, value);
                }
                partitions.add(new FetchResponseData.PartitionData().setPartitionIndex(p).setHighWatermark(1000)
                        .setLastStableOffset(1000).setLogStartOffset(0).setAbortedTransactions(null)
                        .setRecords(MemoryRecords.withRecords(990L, Compression.NONE, records)));
            }
            topics.add(new FetchResponseData.FetchableTopicResponse().setTopic("bench-fetch-" + t)
                    .setTopicId(Uuid.ZERO_UUID).setPartitions(partitions));
        }
        return new FetchResponseData().setThrottleTimeMs(0).setErrorCode((short) 0).setSessionId(0)
                .setResponses(topics);
    }
}
