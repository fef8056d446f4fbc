package io.brook.wire.record;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.Iterator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RecordDecodingTest {

    /** An uncompressed batch header claiming {@code count} records, followed by the given bytes. */
    private static ByteBuffer rawBatch(int count, int... recordBytes) {
        ByteBuffer b = ByteBuffer.allocate(RecordBatch.HEADER_SIZE + recordBytes.length);
        b.putInt(RecordBatch.BATCH_LENGTH_OFFSET, b.capacity() - RecordBatch.LOG_OVERHEAD);
        b.put(RecordBatch.MAGIC_OFFSET, RecordBatch.MAGIC);
        b.putInt(RecordBatch.LAST_OFFSET_DELTA_OFFSET, Math.max(0, count - 1));
        b.putLong(RecordBatch.PRODUCER_ID_OFFSET, -1L);
        b.putShort(RecordBatch.PRODUCER_EPOCH_OFFSET, (short) -1);
        b.putInt(RecordBatch.BASE_SEQUENCE_OFFSET, -1);
        b.putInt(RecordBatch.RECORDS_COUNT_OFFSET, count);
        for (int i = 0; i < recordBytes.length; i++) {
            b.put(RecordBatch.RECORDS_OFFSET + i, (byte) recordBytes[i]);
        }
        b.putInt(RecordBatch.CRC_OFFSET, (int) new RecordBatch().wrap(b, 0).computeCrc());
        return b;
    }

    /** Zig-zag encoding of a value in [-64, 63], which fits one varint byte. */
    private static int z(int n) {
        return n >= 0 ? 2 * n : -2 * n - 1;
    }

    private static void drain(ByteBuffer batch) {
        new RecordBatch().wrap(batch, 0).records().forEachRemaining(r -> { });
    }

    private static void assertCorrupt(ByteBuffer batch, String messagePart) {
        assertThatThrownBy(() -> drain(batch)).isInstanceOf(CorruptRecordException.class).hasMessageContaining(messagePart);
    }

    @Test
    void shouldDecodeAHandWrittenRecord() {
        // length 10: attributes, timestampDelta 3, offsetDelta 0, key "k", value null, one header "h" -> null
        ByteBuffer batch = rawBatch(1, z(10), 0, z(3), z(0), z(1), 'k', z(-1), z(1), z(1), 'h', z(-1));
        Record r = new RecordBatch().wrap(batch, 0).records().next();
        assertThat(r.timestamp()).isEqualTo(3);
        assertThat(Samples.bytes(r.key())).isEqualTo(new byte[] {'k'});
        assertThat(r.value()).isNull();
        assertThat(r.headers()).containsExactly(new RecordHeader("h", null));
        assertThat(r.sizeInBytes()).isEqualTo(11);
    }

    @Test
    void shouldRejectARecordLongerThanTheBatch() {
        assertCorrupt(rawBatch(1, z(50), 0, 0, 0), "length 50 exceeds the 3 bytes");
    }

    @Test
    void shouldRejectANegativeRecordLength() {
        assertCorrupt(rawBatch(1, z(-2), 0, 0), "length -2");
    }

    @Test
    void shouldRejectAKeyLongerThanItsRecord() {
        assertCorrupt(rawBatch(1, z(6), 0, 0, 0, z(50), 0, 0), "key length 50 exceeds");
    }

    @Test
    void shouldRejectAValueLongerThanItsRecord() {
        assertCorrupt(rawBatch(1, z(6), 0, 0, 0, z(-1), z(40), 0), "value length 40 exceeds");
    }

    @Test
    void shouldRejectAHeaderCountThatCannotFit() {
        assertCorrupt(rawBatch(1, z(6), 0, 0, 0, z(-1), z(-1), z(60)), "headerCount 60");
        assertCorrupt(rawBatch(1, z(6), 0, 0, 0, z(-1), z(-1), z(-1)), "headerCount -1");
    }

    @Test
    void shouldRejectANegativeHeaderKeyLength() {
        assertCorrupt(rawBatch(1, z(8), 0, 0, 0, z(-1), z(-1), z(1), z(-1), z(-1)), "header key length -1");
    }

    @Test
    void shouldRejectARecordWhoseFieldsDoNotFillItsLength() {
        assertCorrupt(rawBatch(1, z(7), 0, 0, 0, z(-1), z(-1), z(0), 0), "fields end 1 bytes earlier");
    }

    @Test
    void shouldRejectFewerRecordsThanTheCountSays() {
        assertCorrupt(rawBatch(2, z(6), 0, 0, 0, z(-1), z(-1), z(0)), "record 1 of 2");
    }

    @Test
    void shouldRejectBytesAfterTheLastRecord() {
        assertCorrupt(rawBatch(1, z(6), 0, 0, 0, z(-1), z(-1), z(0), 7, 7), "2 bytes remain after the last of 1 records");
    }

    @Test
    void shouldRejectOverlongVarints() {
        assertCorrupt(rawBatch(1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0, 0), "varint longer than 5 bytes");
        int[] longVarlong = {z(14), 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0, 0, 0};
        assertCorrupt(rawBatch(1, longVarlong), "varlong longer than 10 bytes");
    }

    @Test
    void shouldStopIteratingAfterACorruptRecord() {
        Iterator<Record> it = new RecordBatch().wrap(rawBatch(2, z(50), 0), 0).records();
        assertThat(it.hasNext()).isTrue();
        assertThatThrownBy(it::next).isInstanceOf(CorruptRecordException.class);
        assertThat(it.hasNext()).isFalse();
    }

    @Test
    void shouldRejectABatchThatDoesNotFitItsBuffer() {
        ByteBuffer batch = Samples.smallBatch(Compression.NONE);
        ByteBuffer cut = batch.duplicate().limit(batch.limit() - 1).slice();
        assertThatThrownBy(() -> new RecordBatch().wrap(cut, 0).records()).isInstanceOf(CorruptRecordException.class)
                .hasMessageContaining("batchLength");
    }

    @ParameterizedTest
    @EnumSource(value = Compression.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
    void shouldRejectATruncatedCompressedSection(Compression c) {
        ByteBuffer batch = Samples.smallBatch(c);
        for (int cut = 1; cut < batch.limit() - RecordBatch.RECORDS_OFFSET; cut++) {
            ByteBuffer shorter = ByteBuffer.allocate(batch.limit() - cut).put(batch.duplicate().limit(batch.limit() - cut)).flip();
            shorter.putInt(RecordBatch.BATCH_LENGTH_OFFSET, shorter.limit() - RecordBatch.LOG_OVERHEAD);
            int removed = cut;
            assertThatThrownBy(() -> drain(shorter)).as("%d bytes cut", removed).isInstanceOf(CorruptRecordException.class);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Compression.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
    void shouldRejectGarbageInACompressedSection(Compression c) {
        ByteBuffer batch = Samples.smallBatch(c);
        for (int i = RecordBatch.RECORDS_OFFSET; i < batch.limit(); i++) {
            batch.put(i, (byte) (i * 31));
        }
        assertThatThrownBy(() -> drain(batch)).isInstanceOf(CorruptRecordException.class);
    }

    @ParameterizedTest
    @EnumSource(value = Compression.class, names = "NONE", mode = EnumSource.Mode.EXCLUDE)
    void shouldStopADecompressionBombAtTheLimitWithoutAllocatingMore(Compression c) {
        ByteBuffer bomb = new RecordBatchBuilder(c).append(0L, null, ByteBuffer.allocate(16 * 1024 * 1024)).build();
        assertThat(bomb.limit()).isLessThan(1024 * 1024);
        RecordBatch batch = new RecordBatch().wrap(bomb, 0);
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        assertThatThrownBy(() -> batch.records(1024 * 1024)).isInstanceOf(CorruptRecordException.class)
                .hasMessageContaining("decompresses to more than 1048576 bytes");
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertThat(allocated).isLessThan(8L * 1024 * 1024);
        // and with room enough it decodes
        Record r = batch.records(17 * 1024 * 1024).next();
        assertThat(r.value().remaining()).isEqualTo(16 * 1024 * 1024);
    }

    @Test
    void shouldNotTrustTheUncompressedLengthASnappyBlockDeclares() {
        // raw snappy: varint uncompressed length 2^31 - 1, then one literal byte
        ByteBuffer raw = compressedBatch(Compression.SNAPPY, new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF,
                (byte) 0xFF, 0x07, 0x00, 'x'});
        assertThatThrownBy(() -> drain(raw)).isInstanceOf(CorruptRecordException.class)
                .hasMessageContaining("decompresses to more than");
        // framed: a chunk claiming more bytes than follow
        ByteArrayOutputStream framed = new ByteArrayOutputStream();
        framed.writeBytes(new byte[] {(byte) 0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1});
        framed.writeBytes(new byte[] {0x7F, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 1, 2, 3});
        ByteBuffer chunky = compressedBatch(Compression.SNAPPY, framed.toByteArray());
        assertThatThrownBy(() -> drain(chunky)).isInstanceOf(CorruptRecordException.class)
                .hasMessageContaining("chunk length 2147483647 exceeds the 3 bytes");
    }

    @Test
    void shouldReadUnframedSnappyAsSomeClientsWriteIt() throws Exception {
        byte[] records = recordsSectionOf(Samples.smallBatch(Compression.NONE));
        ByteBuffer raw = compressedBatch(Compression.SNAPPY, org.xerial.snappy.Snappy.compress(records), 5);
        Iterator<Record> it = new RecordBatch().wrap(raw, 0).records();
        int n = 0;
        while (it.hasNext()) {
            assertThat(Samples.bytes(it.next().key())).isEqualTo(Samples.bytes("k" + n));
            n++;
        }
        assertThat(n).isEqualTo(5);
    }

    @Test
    void shouldReadConcatenatedSnappyStreams() throws Exception {
        byte[] records = recordsSectionOf(Samples.smallBatch(Compression.NONE));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int half = records.length / 2;
        for (int[] part : new int[][] {{0, half}, {half, records.length}}) {
            ByteArrayOutputStream one = new ByteArrayOutputStream();
            try (org.xerial.snappy.SnappyOutputStream s = new org.xerial.snappy.SnappyOutputStream(one)) {
                s.write(records, part[0], part[1] - part[0]);
            }
            out.writeBytes(one.toByteArray());
        }
        ByteBuffer batch = compressedBatch(Compression.SNAPPY, out.toByteArray(), 5);
        Iterator<Record> it = new RecordBatch().wrap(batch, 0).records();
        int n = 0;
        while (it.hasNext()) {
            it.next();
            n++;
        }
        assertThat(n).isEqualTo(5);
    }

    /** Other writers (librdkafka among them) may set other frame options; all must read. */
    @Test
    void shouldReadLz4FramesWithChecksumsContentSizeAndLargeBlocks() throws Exception {
        byte[] records = recordsSectionOf(Samples.smallBatch(Compression.NONE));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (net.jpountz.lz4.LZ4FrameOutputStream lz4 = new net.jpountz.lz4.LZ4FrameOutputStream(out,
                net.jpountz.lz4.LZ4FrameOutputStream.BLOCKSIZE.SIZE_4MB, records.length,
                net.jpountz.lz4.LZ4FrameOutputStream.FLG.Bits.BLOCK_INDEPENDENCE,
                net.jpountz.lz4.LZ4FrameOutputStream.FLG.Bits.BLOCK_CHECKSUM,
                net.jpountz.lz4.LZ4FrameOutputStream.FLG.Bits.CONTENT_CHECKSUM,
                net.jpountz.lz4.LZ4FrameOutputStream.FLG.Bits.CONTENT_SIZE)) {
            lz4.write(records);
        }
        ByteBuffer batch = compressedBatch(Compression.LZ4, out.toByteArray(), 5);
        Iterator<Record> it = new RecordBatch().wrap(batch, 0).records();
        int n = 0;
        while (it.hasNext()) {
            assertThat(Samples.bytes(it.next().value())).isEqualTo(Samples.bytes("value number " + n));
            n++;
        }
        assertThat(n).isEqualTo(5);
        // a flipped bit in the block is caught by the block checksum
        byte[] corrupt = out.toByteArray();
        corrupt[20] ^= 1;
        assertThatThrownBy(() -> drain(compressedBatch(Compression.LZ4, corrupt, 5)))
                .isInstanceOf(CorruptRecordException.class);
    }

    private static byte[] recordsSectionOf(ByteBuffer batch) {
        byte[] out = new byte[batch.limit() - RecordBatch.RECORDS_OFFSET];
        batch.get(RecordBatch.RECORDS_OFFSET, out);
        return out;
    }

    private static ByteBuffer compressedBatch(Compression c, byte[] section) {
        return compressedBatch(c, section, 1);
    }

    private static ByteBuffer compressedBatch(Compression c, byte[] section, int count) {
        ByteBuffer b = ByteBuffer.allocate(RecordBatch.HEADER_SIZE + section.length);
        b.putInt(RecordBatch.BATCH_LENGTH_OFFSET, b.capacity() - RecordBatch.LOG_OVERHEAD);
        b.put(RecordBatch.MAGIC_OFFSET, RecordBatch.MAGIC);
        b.putShort(RecordBatch.ATTRIBUTES_OFFSET, (short) c.id());
        b.putInt(RecordBatch.LAST_OFFSET_DELTA_OFFSET, count - 1);
        b.putLong(RecordBatch.PRODUCER_ID_OFFSET, -1L);
        b.putShort(RecordBatch.PRODUCER_EPOCH_OFFSET, (short) -1);
        b.putInt(RecordBatch.BASE_SEQUENCE_OFFSET, -1);
        b.putInt(RecordBatch.RECORDS_COUNT_OFFSET, count);
        b.put(RecordBatch.RECORDS_OFFSET, section);
        return b;
    }
}
