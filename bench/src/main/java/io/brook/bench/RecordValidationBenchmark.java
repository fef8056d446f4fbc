package io.brook.bench;

import io.brook.wire.protocol.Errors;
import io.brook.wire.record.Compression;
import io.brook.wire.record.RecordBatch;
import io.brook.wire.record.RecordBatchBuilder;
import io.brook.wire.record.RecordWalker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.CloseableIterator;
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
import org.openjdk.jmh.annotations.Warmup;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * What validating one produced batch costs, per core: MB/s = ops/s × {@link #batchBytes} / 1e6
 * (the batch's size on the wire, compressed where it is).
 *
 * <ul>
 *   <li>{@link #headerOnly}: the header checks and CRC-32C, all a produced batch got before its
 *       records were walked (the baseline);</li>
 *   <li>{@link #headerAndRecords}: the same plus {@link RecordWalker} over every record, what
 *       an append now does (no visitor: neither compacted nor with timestamp bounds);</li>
 *   <li>{@link #kafkaClients}: kafka-clients' {@code ensureValid()} and iteration over the
 *       records as Kafka's log validator does it ({@code skipKeyValueIterator} for a compressed
 *       batch, the plain iterator otherwise).</li>
 * </ul>
 * Each in a heap buffer and in a direct one. Shapes: 16 records of 1 KiB (the Java producer's default 16 KiB {@code batch.size}) and 500
 * records of 100 bytes. Values are text from a small alphabet, so that they compress about as
 * much as typical JSON does.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RecordValidationBenchmark {
    /** records x value bytes */
    @Param({"16x1024", "500x100"})
    public String shape;

    @Param({"NONE", "LZ4", "ZSTD"})
    public String compression;

    /** Whether the batch lies in a direct buffer, as a request read from a socket (or decrypted) does. */
    @Param({"false", "true"})
    public boolean direct;

    /** Size of the batch, for converting ops/s to MB/s. */
    public int batchBytes;

    private ByteBuffer batch;
    private final RecordBatch flyweight = new RecordBatch();
    private final RecordWalker walker = new RecordWalker(RecordBatch.DEFAULT_MAX_DECOMPRESSED_BYTES);
    private final BufferSupplier buffers = BufferSupplier.create();

    @Setup(Level.Trial)
    public void setUp() {
        String[] parts = shape.split("x");
        int count = Integer.parseInt(parts[0]);
        int valueSize = Integer.parseInt(parts[1]);
        Random random = new Random(7);
        RecordBatchBuilder builder = new RecordBatchBuilder(Compression.valueOf(compression))
                .producer(1L, (short) 0, 0);
        byte[] value = new byte[valueSize];
        String alphabet = "{}\":,abcdefghij0123456789 ";
        for (int i = 0; i < count; i++) {
            for (int j = 0; j < valueSize; j++) {
                value[j] = (byte) alphabet.charAt(random.nextInt(alphabet.length()));
            }
            builder.append(1_700_000_000_000L + i, ("key-" + i).getBytes(StandardCharsets.UTF_8), value);
        }
        batch = builder.build();
        if (direct) {
            batch = ByteBuffer.allocateDirect(batch.remaining()).put(batch).flip();
        }
        batchBytes = batch.remaining();
        if (headerAndRecords() != Errors.NONE || kafkaClients() != count) {
            throw new IllegalStateException("benchmark batch does not validate");
        }
        System.out.println("\nbatch of " + count + " records: " + batchBytes + " bytes (" + compression + ")");
    }

    @Benchmark
    public Errors headerOnly() {
        RecordBatch b = flyweight.wrap(batch, 0);
        return b.validateClientBatch(batch.limit());
    }

    @Benchmark
    public Errors headerAndRecords() {
        RecordBatch b = flyweight.wrap(batch, 0);
        Errors e = b.validateClientBatch(batch.limit());
        return e != Errors.NONE ? e : walker.walk(b, true, null);
    }

    @Benchmark
    public int kafkaClients() {
        int n = 0;
        for (MutableRecordBatch b : MemoryRecords.readableRecords(batch.duplicate()).batches()) {
            b.ensureValid();
            if (b.isCompressed()) {
                try (CloseableIterator<Record> it = b.skipKeyValueIterator(buffers)) {
                    while (it.hasNext()) {
                        it.next();
                        n++;
                    }
                }
            } else {
                for (Record r : b) {
                    n += r.offset() >= 0 ? 1 : 0;
                }
            }
        }
        return n;
    }
}
