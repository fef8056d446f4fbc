package io.brook.bench;

import io.brook.wire.protocol.Errors;
import io.brook.wire.record.Compression;
import io.brook.wire.record.RecordBatch;
import io.brook.wire.record.RecordBatchBuilder;
import io.brook.wire.record.RecordBatches;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
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
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;

/**
 * What Produce costs per byte before a batch is appended: walk the batches of a request's
 * records, check each header and its CRC-32C. One thread, so the figure is per core:
 * GB/s = ops/s × {@code totalBytes} / 1e9.
 *
 * <p>Baselines on the same bytes: {@link #crc32cOnly} (the JDK's intrinsic over the whole
 * buffer, the ceiling) and {@link #kafkaClientsEnsureValid} (what kafka-clients does).
 * Batches are ~16 KiB of 1 KiB records, the Java producer's default {@code batch.size}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RecordBatchCrcBenchmark {
    private static final int BATCH_SIZE = 16 * 1024;
    private static final int VALUE_SIZE = 1024;

    /** Bytes of batches per operation. */
    @Param({"16384", "1048576"})
    public int totalBytes;

    /** Where the request bytes live: a heap array or a direct buffer as a socket read fills it. */
    @Param({"heap", "direct"})
    public String memory;

    private ByteBuffer records;
    private final RecordBatches walk = new RecordBatches();
    private final CRC32C crc = new CRC32C();

    @Setup(Level.Trial)
    public void setUp() {
        Random random = new Random(7);
        byte[] value = new byte[VALUE_SIZE];
        ByteBuffer all = ByteBuffer.allocate(totalBytes + BATCH_SIZE);
        int sequence = 0;
        while (all.position() < totalBytes) {
            RecordBatchBuilder builder = new RecordBatchBuilder(Compression.NONE).producer(1L, (short) 0, sequence);
            int room = Math.min(BATCH_SIZE, totalBytes - all.position());
            int count = Math.max(1, (room - RecordBatch.HEADER_SIZE) / (VALUE_SIZE + 16));
            for (int i = 0; i < count; i++) {
                random.nextBytes(value);
                builder.append(1_700_000_000_000L + i, null, value);
            }
            sequence += count;
            all.put(builder.build());
        }
        all.flip();
        records = "direct".equals(memory) ? ByteBuffer.allocateDirect(all.limit()).put(all).flip() : all;
        if (brookValidate() == 0) {
            throw new IllegalStateException("benchmark data does not validate");
        }
    }

    /** Walk + full client-batch validation (header checks and CRC-32C) per batch. */
    @Benchmark
    public int brookValidate() {
        RecordBatches batches = walk.wrap(records);
        int valid = 0;
        RecordBatch batch;
        while ((batch = batches.next()) != null) {
            if (batch.validateClientBatch(batch.sizeInBytes()) == Errors.NONE) {
                valid++;
            }
        }
        return valid;
    }

    /** The ceiling: CRC-32C over every byte, no parsing. */
    @Benchmark
    public long crc32cOnly() {
        crc.reset();
        crc.update(records.duplicate());
        return crc.getValue();
    }

    /** kafka-clients' batch iteration and {@code ensureValid()} over the same bytes. */
    @Benchmark
    public int kafkaClientsEnsureValid() {
        int valid = 0;
        for (MutableRecordBatch batch : MemoryRecords.readableRecords(records.duplicate()).batches()) {
            batch.ensureValid();
            valid++;
        }
        return valid;
    }
}
