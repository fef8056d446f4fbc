package io.brook.wire.record;

import io.brook.wire.protocol.Errors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Hostile input: whatever the bytes, validation returns an error code, the batch walk stops with a
 * status, and record decoding either succeeds or throws {@link CorruptRecordException} — never
 * another exception, and never a large allocation.
 */
class RecordBatchFuzzTest {
    private static final int DECOMPRESSION_LIMIT = 1024 * 1024;
    private static final long ALLOCATION_BOUND = 32L * 1024 * 1024;

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @Provide
    Arbitrary<ByteBuffer> validBatches() {
        return Arbitraries.of(Compression.values()).flatMap(c -> Arbitraries.of(
                Samples.smallBatch(c),
                new RecordBatchBuilder(c).baseOffset(3).logAppendTime(77L)
                        .append(1L, Samples.bytes("key"), null, RecordHeader.of("a", null), RecordHeader.of("b", new byte[3]))
                        .append(2L, (byte[]) null, Samples.bytes("v"))
                        .build()));
    }

    private static ByteBuffer copy(ByteBuffer b) {
        return ByteBuffer.allocate(b.limit()).put(b.duplicate()).flip();
    }

    @Property(tries = 400, seed = "20261130")
    void mutatedBatchesYieldOnlyErrorCodesOrCorruptRecordExceptions(@ForAll("validBatches") ByteBuffer valid,
                                                                   @ForAll long seed,
                                                                   @ForAll @IntRange(min = 1, max = 8) int mutations,
                                                                   @ForAll boolean fixCrc,
                                                                   @ForAll boolean truncate) {
        Random random = new Random(seed);
        ByteBuffer buffer = copy(valid);
        for (int i = 0; i < mutations; i++) {
            buffer.put(random.nextInt(buffer.limit()), (byte) random.nextInt());
        }
        if (truncate) {
            buffer.limit(random.nextInt(buffer.limit() + 1));
        }
        if (fixCrc && buffer.limit() >= RecordBatch.HEADER_SIZE) {
            RecordBatch batch = new RecordBatch().wrap(buffer, 0);
            if (batch.batchLength() >= RecordBatch.HEADER_SIZE - RecordBatch.LOG_OVERHEAD
                    && batch.sizeInBytes() <= buffer.limit() && batch.sizeInBytes() > 0) {
                buffer.putInt(RecordBatch.CRC_OFFSET, (int) batch.computeCrc());
            }
        }
        exercise(buffer);
    }

    @Property(tries = 300, seed = "20261130")
    void randomBytesYieldOnlyErrorCodesOrCorruptRecordExceptions(@ForAll @Size(max = 300) byte[] bytes,
                                                               @ForAll @IntRange(min = 0, max = 7) int codec,
                                                               @ForAll boolean plausibleHeader) {
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        if (plausibleHeader && bytes.length >= RecordBatch.HEADER_SIZE) {
            buffer.putInt(RecordBatch.BATCH_LENGTH_OFFSET, bytes.length - RecordBatch.LOG_OVERHEAD);
            buffer.put(RecordBatch.MAGIC_OFFSET, RecordBatch.MAGIC);
            buffer.putShort(RecordBatch.ATTRIBUTES_OFFSET, (short) codec);
            buffer.putInt(RecordBatch.RECORDS_COUNT_OFFSET, buffer.getInt(RecordBatch.RECORDS_COUNT_OFFSET) & 0xFF);
        }
        exercise(buffer);
    }

    private static void exercise(ByteBuffer buffer) {
        long before = THREADS.getCurrentThreadAllocatedBytes();
        RecordBatch single = new RecordBatch().wrap(buffer, 0);
        Errors error = single.validateClientBatch(buffer.limit());
        assertThat(error).isNotNull();
        single.isCrcValid();

        RecordBatches walk = new RecordBatches().wrap(buffer);
        RecordBatch batch;
        while ((batch = walk.next()) != null) {
            batch.isCrcValid();
            batch.validateClientBatch(batch.sizeInBytes());
            try {
                Iterator<Record> records = batch.records(DECOMPRESSION_LIMIT);
                while (records.hasNext()) {
                    Record r = records.next();
                    assertThat(r.sizeInBytes()).isPositive();
                }
            } catch (CorruptRecordException expected) {
                assertThat(expected.getMessage()).isNotBlank();
            }
        }
        assertThat(walk.status()).isNotEqualTo(RecordBatches.Status.MORE);
        assertThat(walk.position()).isBetween(buffer.position(), buffer.limit());
        long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
        assertThat(allocated).isLessThan(ALLOCATION_BOUND);
    }
}
