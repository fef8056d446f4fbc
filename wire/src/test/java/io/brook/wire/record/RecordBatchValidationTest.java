package io.brook.wire.record;

import io.brook.wire.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

class RecordBatchValidationTest {

    private static ByteBuffer valid() {
        return Samples.smallBatch(Compression.NONE);
    }

    /** Applies a change to a valid batch and recomputes its CRC, so that only the change is wrong. */
    private static Errors validateAfter(Consumer<ByteBuffer> change) {
        ByteBuffer buffer = valid();
        change.accept(buffer);
        RecordBatch batch = new RecordBatch().wrap(buffer, 0);
        buffer.putInt(RecordBatch.CRC_OFFSET, (int) batch.computeCrc());
        return batch.validateClientBatch(buffer.limit());
    }

    /** Applies a change to a field outside the CRC. */
    private static Errors validateAfterUncoveredChange(Consumer<ByteBuffer> change) {
        ByteBuffer buffer = valid();
        change.accept(buffer);
        return new RecordBatch().wrap(buffer, 0).validateClientBatch(buffer.limit());
    }

    @ParameterizedTest
    @EnumSource(Compression.class)
    void shouldAcceptAValidBatchOfEveryCodec(Compression c) {
        ByteBuffer buffer = Samples.smallBatch(c);
        assertThat(new RecordBatch().wrap(buffer, 0).validateClientBatch(buffer.limit())).isEqualTo(Errors.NONE);
    }

    @Test
    void shouldValidateABatchInTheMiddleOfALargerBuffer() {
        ByteBuffer batch = valid();
        ByteBuffer big = ByteBuffer.allocate(batch.limit() + 100);
        big.position(37);
        big.put(batch.duplicate());
        RecordBatch flyweight = new RecordBatch().wrap(big, 37);
        assertThat(flyweight.validateClientBatch(batch.limit())).isEqualTo(Errors.NONE);
        assertThat(flyweight.validateClientBatch(batch.limit() - 1)).isEqualTo(Errors.CORRUPT_MESSAGE);
    }

    @ParameterizedTest
    @ValueSource(bytes = {0, 1})
    void shouldRejectOldMagicAsUnsupportedFormat(byte magic) {
        assertThat(validateAfterUncoveredChange(b -> b.put(RecordBatch.MAGIC_OFFSET, magic)))
                .isEqualTo(Errors.UNSUPPORTED_FOR_MESSAGE_FORMAT);
    }

    @ParameterizedTest
    @ValueSource(bytes = {3, -1, 127})
    void shouldRejectUnknownMagicAsCorrupt(byte magic) {
        assertThat(validateAfterUncoveredChange(b -> b.put(RecordBatch.MAGIC_OFFSET, magic))).isEqualTo(Errors.CORRUPT_MESSAGE);
    }

    @ParameterizedTest
    @ValueSource(ints = {Integer.MIN_VALUE, -1, 0, 48, Integer.MAX_VALUE})
    void shouldRejectImpossibleBatchLengths(int length) {
        assertThat(validateAfterUncoveredChange(b -> b.putInt(RecordBatch.BATCH_LENGTH_OFFSET, length)))
                .isEqualTo(Errors.CORRUPT_MESSAGE);
    }

    @Test
    void shouldRejectABatchLongerThanTheBytesReceived() {
        ByteBuffer buffer = valid();
        RecordBatch batch = new RecordBatch().wrap(buffer, 0);
        for (int available = 0; available < buffer.limit(); available++) {
            assertThat(batch.validateClientBatch(available)).as("%d bytes", available).isEqualTo(Errors.CORRUPT_MESSAGE);
        }
        // more bytes than the buffer holds are capped at the buffer, never read past it
        ByteBuffer cut = buffer.duplicate().limit(buffer.limit() - 1).slice();
        assertThat(new RecordBatch().wrap(cut, 0).validateClientBatch(Integer.MAX_VALUE)).isEqualTo(Errors.CORRUPT_MESSAGE);
    }

    @ParameterizedTest
    @EnumSource(Compression.class)
    void shouldRejectBatchWithBadCrc(Compression c) {
        ByteBuffer original = Samples.smallBatch(c);
        for (int i = RecordBatch.ATTRIBUTES_OFFSET; i < original.limit(); i++) {
            ByteBuffer buffer = ByteBuffer.allocate(original.limit()).put(original.duplicate()).flip();
            buffer.put(i, (byte) (buffer.get(i) ^ 0x10));
            RecordBatch batch = new RecordBatch().wrap(buffer, 0);
            assertThat(batch.isCrcValid()).as("flipped byte %d", i).isFalse();
            assertThat(batch.validateClientBatch(buffer.limit())).as("flipped byte %d", i)
                    .isEqualTo(Errors.CORRUPT_MESSAGE);
        }
        ByteBuffer badCrc = ByteBuffer.allocate(original.limit()).put(original.duplicate()).flip();
        badCrc.put(RecordBatch.CRC_OFFSET, (byte) (badCrc.get(RecordBatch.CRC_OFFSET) + 1));
        assertThat(new RecordBatch().wrap(badCrc, 0).validateClientBatch(badCrc.limit())).isEqualTo(Errors.CORRUPT_MESSAGE);
    }

    @Test
    void shouldKeepTheCrcValidWhenFieldsOutsideItChange() {
        ByteBuffer buffer = valid();
        RecordBatch batch = new RecordBatch().wrap(buffer, 0);
        long crc = batch.crc();
        batch.setBaseOffset(Long.MAX_VALUE / 2);
        batch.setPartitionLeaderEpoch(123);
        assertThat(batch.computeCrc()).isEqualTo(crc);
        assertThat(batch.validateClientBatch(buffer.limit())).isEqualTo(Errors.NONE);
        assertThat(batch.baseOffset()).isEqualTo(Long.MAX_VALUE / 2);
        assertThat(batch.partitionLeaderEpoch()).isEqualTo(123);
        assertThat(batch.lastOffset()).isEqualTo(Long.MAX_VALUE / 2 + 4);
        batch.setLastOffset(99);
        assertThat(batch.baseOffset()).isEqualTo(95);
    }

    @Test
    void shouldRecomputeTheCrcWhenSettingMaxTimestamp() {
        ByteBuffer buffer = valid();
        RecordBatch batch = new RecordBatch().wrap(buffer, 0);
        batch.setMaxTimestamp(TimestampType.LOG_APPEND_TIME, 42L);
        assertThat(batch.timestampType()).isEqualTo(TimestampType.LOG_APPEND_TIME);
        assertThat(batch.maxTimestamp()).isEqualTo(42L);
        assertThat(batch.isCrcValid()).isTrue();
        batch.records().forEachRemaining(r -> assertThat(r.timestamp()).isEqualTo(42L));
    }

    @ParameterizedTest
    @ValueSource(ints = {5, 6, 7})
    void shouldRejectUnknownCompressionCodec(int codec) {
        assertThat(validateAfter(b -> b.putShort(RecordBatch.ATTRIBUTES_OFFSET,
                (short) ((b.getShort(RecordBatch.ATTRIBUTES_OFFSET) & ~7) | codec))))
                .isEqualTo(Errors.UNSUPPORTED_COMPRESSION_TYPE);
    }

    @Test
    void shouldRejectControlBatchesFromClients() {
        assertThat(validateAfter(b -> b.putShort(RecordBatch.ATTRIBUTES_OFFSET,
                (short) (b.getShort(RecordBatch.ATTRIBUTES_OFFSET) | 0x30)))).isEqualTo(Errors.INVALID_RECORD);
        ByteBuffer marker = RecordBatchBuilder.endTransactionMarker(0, 0, 5L, (short) 0, ControlRecordType.COMMIT, 1, 0L);
        assertThat(new RecordBatch().wrap(marker, 0).validateClientBatch(marker.limit())).isEqualTo(Errors.INVALID_RECORD);
    }

    @Test
    void shouldRejectRecordCountsThatDisagreeWithTheOffsetDelta() {
        assertThat(validateAfter(b -> b.putInt(RecordBatch.RECORDS_COUNT_OFFSET, 0))).isEqualTo(Errors.INVALID_RECORD);
        assertThat(validateAfter(b -> b.putInt(RecordBatch.RECORDS_COUNT_OFFSET, -5))).isEqualTo(Errors.INVALID_RECORD);
        assertThat(validateAfter(b -> b.putInt(RecordBatch.RECORDS_COUNT_OFFSET, 4))).isEqualTo(Errors.INVALID_RECORD);
        assertThat(validateAfter(b -> b.putInt(RecordBatch.LAST_OFFSET_DELTA_OFFSET, 5))).isEqualTo(Errors.INVALID_RECORD);
        assertThat(validateAfter(b -> b.putInt(RecordBatch.LAST_OFFSET_DELTA_OFFSET, -1))).isEqualTo(Errors.INVALID_RECORD);
        assertThat(validateAfter(b -> {
            b.putInt(RecordBatch.LAST_OFFSET_DELTA_OFFSET, Integer.MAX_VALUE);
            b.putInt(RecordBatch.RECORDS_COUNT_OFFSET, Integer.MIN_VALUE);
        })).isEqualTo(Errors.INVALID_RECORD);
    }

    @Test
    void shouldRejectAnUncompressedBatchTooShortForItsRecordCount() {
        assertThat(validateAfter(b -> {
            b.putInt(RecordBatch.LAST_OFFSET_DELTA_OFFSET, 99_999);
            b.putInt(RecordBatch.RECORDS_COUNT_OFFSET, 100_000);
        })).isEqualTo(Errors.CORRUPT_MESSAGE);
    }

    @Test
    void shouldRejectInconsistentProducerFields() {
        assertThat(validateAfter(b -> b.putInt(RecordBatch.BASE_SEQUENCE_OFFSET, -1))).isEqualTo(Errors.INVALID_RECORD);
        assertThat(validateAfter(b -> b.putShort(RecordBatch.PRODUCER_EPOCH_OFFSET, (short) -1)))
                .isEqualTo(Errors.INVALID_RECORD);
        // transactional without a producer id
        assertThat(validateAfter(b -> {
            b.putLong(RecordBatch.PRODUCER_ID_OFFSET, -1L);
            b.putShort(RecordBatch.ATTRIBUTES_OFFSET, (short) (b.getShort(RecordBatch.ATTRIBUTES_OFFSET) | 0x10));
        })).isEqualTo(Errors.INVALID_RECORD);
        // a plain producer: no id, epoch or sequence
        assertThat(validateAfter(b -> {
            b.putLong(RecordBatch.PRODUCER_ID_OFFSET, -1L);
            b.putShort(RecordBatch.PRODUCER_EPOCH_OFFSET, (short) -1);
            b.putInt(RecordBatch.BASE_SEQUENCE_OFFSET, -1);
        })).isEqualTo(Errors.NONE);
    }

    @Test
    void shouldNotThrowOnBuffersTooShortForAHeader() {
        for (int size = 0; size < RecordBatch.HEADER_SIZE; size++) {
            ByteBuffer tiny = ByteBuffer.allocate(size);
            if (size > RecordBatch.MAGIC_OFFSET) {
                tiny.put(RecordBatch.MAGIC_OFFSET, (byte) 2);
            }
            RecordBatch batch = new RecordBatch().wrap(tiny, 0);
            assertThat(batch.validateClientBatch(size)).isEqualTo(Errors.CORRUPT_MESSAGE);
            assertThat(batch.isCrcValid()).isFalse();
        }
    }

    @ParameterizedTest
    @EnumSource(Compression.class)
    void shouldValidateAndDecodeReadOnlyAndDirectBuffers(Compression c) {
        ByteBuffer heap = Samples.smallBatch(c);
        ByteBuffer direct = ByteBuffer.allocateDirect(heap.limit()).put(heap.duplicate()).flip();
        for (ByteBuffer b : new ByteBuffer[] {heap.asReadOnlyBuffer(), direct, direct.asReadOnlyBuffer()}) {
            RecordBatch batch = new RecordBatch().wrap(b, 0);
            assertThat(batch.validateClientBatch(b.limit())).isEqualTo(Errors.NONE);
            assertThat(batch.records()).toIterable().hasSize(5)
                    .allSatisfy(r -> assertThat(r.headers()).containsExactly(
                            RecordHeader.of("h", Samples.bytes("v" + r.offsetDelta()))));
            assertThat(b.position()).isZero();
            assertThat(b.limit()).isEqualTo(heap.limit());
        }
    }

    @Test
    void shouldRejectLittleEndianBuffers() {
        ByteBuffer b = valid().order(java.nio.ByteOrder.LITTLE_ENDIAN);
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException().isThrownBy(() -> new RecordBatch().wrap(b, 0));
    }

    /**
     * The produce path validates every batch; it must not allocate, whatever kind of buffer the
     * network layer hands over (after the flyweight's one-off set-up per buffer).
     */
    @ParameterizedTest
    @ValueSource(strings = {"heap", "direct", "readOnlyHeap"})
    void shouldValidateWithoutAllocating(String kind) {
        ByteBuffer heap = Samples.smallBatch(Compression.LZ4);
        ByteBuffer buffer = switch (kind) {
            case "heap" -> heap;
            case "direct" -> ByteBuffer.allocateDirect(heap.limit()).put(heap.duplicate()).flip();
            default -> heap.asReadOnlyBuffer();
        };
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        RecordBatch batch = new RecordBatch();
        int size = buffer.limit();
        Errors result = Errors.UNKNOWN_SERVER_ERROR;
        for (int i = 0; i < 20_000; i++) { // warm up, and the one-off view
            result = batch.wrap(buffer, 0).validateClientBatch(size);
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 100_000; i++) {
            result = batch.wrap(buffer, 0).validateClientBatch(size);
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertThat(result).isEqualTo(Errors.NONE);
        // one allocation per call would be at least 1.6 MB; leave room for the measurement itself
        assertThat(allocated).isLessThan(64 * 1024);
    }
}
