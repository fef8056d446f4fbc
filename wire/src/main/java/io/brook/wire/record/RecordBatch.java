package io.brook.wire.record;

import io.brook.wire.protocol.BufferRecords;
import io.brook.wire.protocol.Errors;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Iterator;
import java.util.zip.CRC32C;

/**
 * Flyweight over one record batch of magic 2 in a {@link ByteBuffer}: every accessor reads its
 * field at a fixed offset from the batch start, nothing is copied, and re-pointing the flyweight
 * with {@link #wrap(ByteBuffer, int)} costs nothing.
 *
 * <pre>
 *  offset size                                                              covered by CRC
 *  +----+----+------------------------------------------------------------+
 *  |  0 |  8 | baseOffset            int64  set by the broker             |
 *  |  8 |  4 | batchLength           int32  bytes after this field        |
 *  | 12 |  4 | partitionLeaderEpoch  int32  set by the broker             |
 *  | 16 |  1 | magic                 int8   2                             |
 *  | 17 |  4 | crc                   uint32 CRC-32C of [21, end)          |
 *  +----+----+------------------------------------------------------------+ --+
 *  | 21 |  2 | attributes            int16  see below                     |   |
 *  | 23 |  4 | lastOffsetDelta       int32                                |   |
 *  | 27 |  8 | baseTimestamp         int64  or the delete horizon         |   |
 *  | 35 |  8 | maxTimestamp          int64                                |   |
 *  | 43 |  8 | producerId            int64  -1 = none                     |   |
 *  | 51 |  2 | producerEpoch         int16  -1 = none                     |   |
 *  | 53 |  4 | baseSequence          int32  -1 = none                     |   |
 *  | 57 |  4 | recordsCount          int32                                |   |
 *  +----+----+------------------------------------------------------------+   |
 *  | 61 |  n | records (the only part that is compressed)                 |   |
 *  +----+----+------------------------------------------------------------+ --+
 *
 *  attributes: bit 0-2 compression (Compression.id), 3 timestamp type (1 = LogAppendTime),
 *              4 transactional, 5 control, 6 delete horizon in baseTimestamp, 7-15 unused
 * </pre>
 *
 * <p>All integers are big-endian; the wrapped buffer must have big-endian byte order (the default
 * of every buffer that was not explicitly switched). The crc does not cover baseOffset,
 * batchLength, partitionLeaderEpoch or magic, which is why a broker can assign the first two of
 * them in place ({@link #setBaseOffset(long)}, {@link #setPartitionLeaderEpoch(int)}) without
 * recomputing it. The setters need a writable buffer (a read-only one throws
 * {@link java.nio.ReadOnlyBufferException}).
 *
 * <p>Bounds: the field accessors assume that the whole 61-byte header lies in the buffer; they are
 * meant for a batch that {@link #validateClientBatch(int)} accepted or that {@link RecordBatches}
 * returned (both guarantee the whole batch is present). {@code validateClientBatch},
 * {@link #isCrcValid()} and {@link #records()} check the bounds themselves and may be given any
 * bytes.
 *
 * <p>Threading: an instance is not thread-safe. It owns a {@link CRC32C} (and, for read-only
 * heap buffers, a small scratch array), so validation allocates nothing; give each thread its own
 * flyweight. Computing the CRC never moves the position or limit of the wrapped buffer, so
 * several threads may validate batches of one shared buffer, each with its own flyweight.
 */
public final class RecordBatch {
    public static final int BASE_OFFSET_OFFSET = 0;
    public static final int BATCH_LENGTH_OFFSET = 8;
    public static final int PARTITION_LEADER_EPOCH_OFFSET = 12;
    public static final int MAGIC_OFFSET = 16;
    public static final int CRC_OFFSET = 17;
    public static final int ATTRIBUTES_OFFSET = 21;
    public static final int LAST_OFFSET_DELTA_OFFSET = 23;
    public static final int BASE_TIMESTAMP_OFFSET = 27;
    public static final int MAX_TIMESTAMP_OFFSET = 35;
    public static final int PRODUCER_ID_OFFSET = 43;
    public static final int PRODUCER_EPOCH_OFFSET = 51;
    public static final int BASE_SEQUENCE_OFFSET = 53;
    public static final int RECORDS_COUNT_OFFSET = 57;
    public static final int RECORDS_OFFSET = 61;

    /** baseOffset + batchLength: the bytes not counted by batchLength. */
    public static final int LOG_OVERHEAD = BATCH_LENGTH_OFFSET + 4;
    /** Size of the header, i.e. of a batch without records. */
    public static final int HEADER_SIZE = RECORDS_OFFSET;
    /** The only magic this class reads and writes. */
    public static final byte MAGIC = 2;

    public static final long NO_PRODUCER_ID = -1L;
    public static final short NO_PRODUCER_EPOCH = -1;
    public static final int NO_SEQUENCE = -1;
    public static final int NO_PARTITION_LEADER_EPOCH = -1;
    public static final long NO_TIMESTAMP = -1L;

    static final int COMPRESSION_MASK = 0x07;
    static final int TIMESTAMP_TYPE_MASK = 0x08;
    static final int TRANSACTIONAL_FLAG_MASK = 0x10;
    static final int CONTROL_FLAG_MASK = 0x20;
    static final int DELETE_HORIZON_FLAG_MASK = 0x40;

    /**
     * The smallest possible encoded record: length, attributes, timestampDelta, offsetDelta,
     * keyLength, valueLength and headerCount, one byte each.
     */
    static final int MIN_RECORD_SIZE = 7;

    /**
     * Decompressed size above which {@link #records()} gives up (a bound against bombs); also the
     * most a produced batch may decompress to, so that every stored batch can be decoded.
     */
    public static final int DEFAULT_MAX_DECOMPRESSED_BYTES = 64 * 1024 * 1024;

    private static final int SCRATCH_SIZE = 4096;

    private final CRC32C crc32c = new CRC32C();
    private ByteBuffer buffer;
    private int offset;

    /** A private view of {@link #buffer} for CRC over direct memory; remade only when the buffer changes. */
    private ByteBuffer crcView;
    private ByteBuffer crcViewSource;
    private byte[] scratch;

    /**
     * Points this flyweight at the batch that starts at absolute index {@code position} of
     * {@code buf}. The buffer's own position and limit are left alone and not used.
     *
     * @throws IllegalArgumentException if the buffer is not big-endian or the position is outside it
     */
    public RecordBatch wrap(ByteBuffer buf, int position) {
        if (buf.order() != ByteOrder.BIG_ENDIAN) {
            throw new IllegalArgumentException("record batches are big-endian; buffer order is " + buf.order());
        }
        if (position < 0 || position > buf.limit()) {
            throw new IllegalArgumentException("position " + position + " outside buffer limit " + buf.limit());
        }
        this.buffer = buf;
        this.offset = position;
        return this;
    }

    /** The buffer this flyweight reads; the batch starts at {@link #offset()}. */
    public ByteBuffer buffer() {
        return buffer;
    }

    /** Absolute index of the batch's first byte in {@link #buffer()}. */
    public int offset() {
        return offset;
    }

    /** The whole batch: {@link #LOG_OVERHEAD} + batchLength. */
    public int sizeInBytes() {
        return LOG_OVERHEAD + batchLength();
    }

    public long baseOffset() {
        return buffer.getLong(offset + BASE_OFFSET_OFFSET);
    }

    /** Writes the base offset in place. Outside the CRC, so the CRC stays valid. */
    public void setBaseOffset(long baseOffset) {
        buffer.putLong(offset + BASE_OFFSET_OFFSET, baseOffset);
    }

    /** Sets the base offset such that the batch's last offset becomes {@code lastOffset}. */
    public void setLastOffset(long lastOffset) {
        setBaseOffset(lastOffset - lastOffsetDelta());
    }

    public long lastOffset() {
        return baseOffset() + lastOffsetDelta();
    }

    /** The offset after this batch: lastOffset + 1. */
    public long nextOffset() {
        return lastOffset() + 1;
    }

    public int batchLength() {
        return buffer.getInt(offset + BATCH_LENGTH_OFFSET);
    }

    public int partitionLeaderEpoch() {
        return buffer.getInt(offset + PARTITION_LEADER_EPOCH_OFFSET);
    }

    /** Writes the partition leader epoch in place. Outside the CRC, so the CRC stays valid. */
    public void setPartitionLeaderEpoch(int epoch) {
        buffer.putInt(offset + PARTITION_LEADER_EPOCH_OFFSET, epoch);
    }

    public byte magic() {
        return buffer.get(offset + MAGIC_OFFSET);
    }

    /** The stored CRC-32C, as an unsigned 32-bit value. */
    public long crc() {
        return buffer.getInt(offset + CRC_OFFSET) & 0xFFFFFFFFL;
    }

    public short attributes() {
        return buffer.getShort(offset + ATTRIBUTES_OFFSET);
    }

    /**
     * Whether {@code records} starts with a batch header whose attributes name a compression
     * codec: a cheap look at two bytes, no validation.
     */
    public static boolean startsCompressed(BufferRecords records) {
        return records.sizeInBytes() >= HEADER_SIZE && (records.shortAt(ATTRIBUTES_OFFSET) & COMPRESSION_MASK) != 0;
    }

    /**
     * Whether {@code records} starts with a batch header flagged transactional: a cheap look at
     * two bytes, no validation.
     */
    public static boolean startsTransactional(BufferRecords records) {
        return records.sizeInBytes() >= HEADER_SIZE
                && (records.shortAt(ATTRIBUTES_OFFSET) & TRANSACTIONAL_FLAG_MASK) != 0;
    }

    /** Attribute bits 0-2, which may name an unassigned codec (5-7). */
    public int compressionId() {
        return attributes() & COMPRESSION_MASK;
    }

    /** The codec, or {@code null} if bits 0-2 hold an unassigned id (5-7). */
    public Compression compression() {
        return Compression.forId(compressionId());
    }

    public TimestampType timestampType() {
        return (attributes() & TIMESTAMP_TYPE_MASK) == 0 ? TimestampType.CREATE_TIME : TimestampType.LOG_APPEND_TIME;
    }

    public boolean isTransactional() {
        return (attributes() & TRANSACTIONAL_FLAG_MASK) != 0;
    }

    public boolean isControl() {
        return (attributes() & CONTROL_FLAG_MASK) != 0;
    }

    public boolean hasDeleteHorizon() {
        return (attributes() & DELETE_HORIZON_FLAG_MASK) != 0;
    }

    /**
     * The time after which the cleaner may drop this batch's tombstones and aborted-transaction
     * markers; stored in baseTimestamp when {@link #hasDeleteHorizon()}, else {@link #NO_TIMESTAMP}.
     */
    public long deleteHorizonMs() {
        return hasDeleteHorizon() ? baseTimestamp() : NO_TIMESTAMP;
    }

    public int lastOffsetDelta() {
        return buffer.getInt(offset + LAST_OFFSET_DELTA_OFFSET);
    }

    public long baseTimestamp() {
        return buffer.getLong(offset + BASE_TIMESTAMP_OFFSET);
    }

    public long maxTimestamp() {
        return buffer.getLong(offset + MAX_TIMESTAMP_OFFSET);
    }

    /**
     * Sets the timestamp type and maxTimestamp (for LogAppendTime: the broker's append time) and
     * recomputes the CRC, since both fields are covered by it. No-op when nothing changes.
     */
    public void setMaxTimestamp(TimestampType type, long maxTimestamp) {
        short attributes = attributes();
        short newAttributes = (short) (type == TimestampType.LOG_APPEND_TIME
                ? attributes | TIMESTAMP_TYPE_MASK
                : attributes & ~TIMESTAMP_TYPE_MASK);
        if (attributes == newAttributes && maxTimestamp() == maxTimestamp) {
            return;
        }
        buffer.putShort(offset + ATTRIBUTES_OFFSET, newAttributes);
        buffer.putLong(offset + MAX_TIMESTAMP_OFFSET, maxTimestamp);
        buffer.putInt(offset + CRC_OFFSET, (int) computeCrc());
    }

    public long producerId() {
        return buffer.getLong(offset + PRODUCER_ID_OFFSET);
    }

    /** Whether the batch comes from an idempotent or transactional producer. */
    public boolean hasProducerId() {
        return producerId() > NO_PRODUCER_ID;
    }

    public short producerEpoch() {
        return buffer.getShort(offset + PRODUCER_EPOCH_OFFSET);
    }

    public int baseSequence() {
        return buffer.getInt(offset + BASE_SEQUENCE_OFFSET);
    }

    /** Sequence of the last record: baseSequence + lastOffsetDelta, wrapping from Int.MAX to 0. */
    public int lastSequence() {
        int base = baseSequence();
        return base == NO_SEQUENCE ? NO_SEQUENCE : incrementSequence(base, lastOffsetDelta());
    }

    public int recordsCount() {
        return buffer.getInt(offset + RECORDS_COUNT_OFFSET);
    }

    /** Adds to a producer sequence the way the protocol does: past Int.MAX it continues at 0. */
    static int incrementSequence(int sequence, int increment) {
        if (sequence > Integer.MAX_VALUE - increment) {
            return increment - (Integer.MAX_VALUE - sequence) - 1;
        }
        return sequence + increment;
    }

    /**
     * Checks a batch sent by a client (Produce) before it is appended: everything a broker can
     * check without decoding records. {@code bytesAvailable} counts the bytes from the batch start
     * to the end of the data it was received in (it is capped at the buffer's limit); the batch
     * must fit in them. Checks, in order:
     * <ol>
     *   <li>magic: 0 or 1 → UNSUPPORTED_FOR_MESSAGE_FORMAT, anything but 2 → CORRUPT_MESSAGE;</li>
     *   <li>batchLength covers at least the header and fits in {@code bytesAvailable} → else
     *       CORRUPT_MESSAGE;</li>
     *   <li>CRC-32C → CORRUPT_MESSAGE (first of the checks on covered fields, since a bad CRC
     *       makes the others meaningless);</li>
     *   <li>compression codec assigned → else UNSUPPORTED_COMPRESSION_TYPE;</li>
     *   <li>not a control batch (only the transaction coordinator writes those) → INVALID_RECORD;</li>
     *   <li>recordsCount &gt; 0 and lastOffsetDelta + 1 == recordsCount → else INVALID_RECORD;</li>
     *   <li>an uncompressed batch has room for recordsCount records → else CORRUPT_MESSAGE;</li>
     *   <li>producerId &ge; 0 ⇒ producerEpoch &ge; 0 and baseSequence &ge; 0; transactional ⇒
     *       producerId &ge; 0 → else INVALID_RECORD.</li>
     * </ol>
     * Never throws and never allocates.
     *
     * @return {@link Errors#NONE} if the batch may be appended, else the error for the client
     */
    public Errors validateClientBatch(int bytesAvailable) {
        int available = Math.min(bytesAvailable, buffer.limit() - offset);
        if (available < MAGIC_OFFSET + 1) {
            return Errors.CORRUPT_MESSAGE;
        }
        byte magic = magic();
        if (magic == 0 || magic == 1) {
            return Errors.UNSUPPORTED_FOR_MESSAGE_FORMAT;
        }
        if (magic != MAGIC) {
            return Errors.CORRUPT_MESSAGE;
        }
        int batchLength = batchLength();
        if (batchLength < HEADER_SIZE - LOG_OVERHEAD || (long) batchLength + LOG_OVERHEAD > available) {
            return Errors.CORRUPT_MESSAGE;
        }
        if (computeCrc() != crc()) {
            return Errors.CORRUPT_MESSAGE;
        }
        short attributes = attributes();
        if (Compression.forId(attributes & COMPRESSION_MASK) == null) {
            return Errors.UNSUPPORTED_COMPRESSION_TYPE;
        }
        if ((attributes & CONTROL_FLAG_MASK) != 0) {
            return Errors.INVALID_RECORD;
        }
        int count = recordsCount();
        if (count <= 0 || lastOffsetDelta() + 1L != count) {
            return Errors.INVALID_RECORD;
        }
        if ((attributes & COMPRESSION_MASK) == 0
                && (long) count * MIN_RECORD_SIZE > batchLength + LOG_OVERHEAD - HEADER_SIZE) {
            return Errors.CORRUPT_MESSAGE;
        }
        long producerId = producerId();
        if (producerId >= 0) {
            if (producerEpoch() < 0 || baseSequence() < 0) {
                return Errors.INVALID_RECORD;
            }
        } else if ((attributes & TRANSACTIONAL_FLAG_MASK) != 0) {
            return Errors.INVALID_RECORD;
        }
        return Errors.NONE;
    }

    /**
     * Whether the stored CRC matches the batch's bytes. False (rather than an exception) if the
     * batch is not entirely inside the buffer. Allocates nothing.
     */
    public boolean isCrcValid() {
        int limit = buffer.limit();
        if (offset > limit - HEADER_SIZE) {
            return false;
        }
        int batchLength = batchLength();
        if (batchLength < HEADER_SIZE - LOG_OVERHEAD || (long) offset + LOG_OVERHEAD + batchLength > limit) {
            return false;
        }
        return computeCrc() == crc();
    }

    /**
     * CRC-32C of bytes [{@link #ATTRIBUTES_OFFSET}, end of batch), as an unsigned 32-bit value.
     * The batch must be entirely inside the buffer. Allocates nothing once the flyweight has seen
     * the buffer (a direct buffer costs one view per distinct buffer wrapped).
     */
    // the duplicate of the buffer is cached per buffer object: identity, not content, decides
    @SuppressWarnings("ReferenceEquality")
    public long computeCrc() {
        int from = offset + ATTRIBUTES_OFFSET;
        int to = offset + sizeInBytes();
        if (to < from || to > buffer.limit()) {
            throw new IndexOutOfBoundsException("batch [" + offset + ", " + to + ") is not inside the buffer (limit "
                    + buffer.limit() + ")");
        }
        CRC32C crc = crc32c;
        crc.reset();
        ByteBuffer buf = buffer;
        if (buf.hasArray()) {
            crc.update(buf.array(), buf.arrayOffset() + from, to - from);
        } else if (buf.isDirect()) {
            ByteBuffer view = crcView;
            if (view == null || crcViewSource != buf) {
                view = buf.duplicate();
                crcView = view;
                crcViewSource = buf;
            }
            view.limit(to).position(from);
            crc.update(view);
        } else {
            // Read-only heap buffer: no array access, and CRC32C would allocate a temporary one.
            byte[] chunk = scratch;
            if (chunk == null) {
                chunk = new byte[SCRATCH_SIZE];
                scratch = chunk;
            }
            for (int i = from; i < to; ) {
                int n = Math.min(chunk.length, to - i);
                buf.get(i, chunk, 0, n);
                crc.update(chunk, 0, n);
                i += n;
            }
        }
        return crc.getValue();
    }

    /**
     * Decodes the batch's records, decompressing the records section first when the batch is
     * compressed (into one array of at most {@link #DEFAULT_MAX_DECOMPRESSED_BYTES}). The iterator
     * captures what it needs, so this flyweight may be re-wrapped while it is in use. Keys and
     * values of an uncompressed batch are read-only slices of the wrapped buffer.
     *
     * @throws CorruptRecordException if the batch does not fit in the buffer, its codec is unknown
     *         or its records section does not decompress; the iterator throws it for records that
     *         cannot be decoded
     */
    public Iterator<Record> records() {
        return records(DEFAULT_MAX_DECOMPRESSED_BYTES);
    }

    /** {@link #records()} with a caller-chosen bound on the decompressed size of the records section. */
    public Iterator<Record> records(int maxDecompressedBytes) {
        int limit = buffer.limit();
        if (offset > limit - HEADER_SIZE) {
            throw new CorruptRecordException("record batch at " + offset + ": header needs " + HEADER_SIZE
                    + " bytes, " + (limit - offset) + " remain");
        }
        if (magic() != MAGIC) {
            throw new CorruptRecordException("record batch at " + offset + ": magic " + magic() + " is not 2");
        }
        int batchLength = batchLength();
        if (batchLength < HEADER_SIZE - LOG_OVERHEAD || (long) offset + LOG_OVERHEAD + batchLength > limit) {
            throw new CorruptRecordException("record batch at " + offset + ": batchLength " + batchLength
                    + " outside [" + (HEADER_SIZE - LOG_OVERHEAD) + ", " + (limit - offset - LOG_OVERHEAD) + "]");
        }
        int count = recordsCount();
        if (count < 0) {
            throw new CorruptRecordException("record batch at " + offset + ": negative recordsCount " + count);
        }
        Compression compression = compression();
        if (compression == null) {
            throw new CorruptRecordException("record batch at " + offset + ": unknown compression id " + compressionId());
        }
        int from = offset + RECORDS_OFFSET;
        int to = offset + LOG_OVERHEAD + batchLength;
        ByteBuffer data;
        int dataFrom;
        int dataTo;
        if (compression == Compression.NONE) {
            data = buffer;
            dataFrom = from;
            dataTo = to;
        } else {
            data = CompressionCodecs.decompress(compression, buffer, from, to, maxDecompressedBytes);
            dataFrom = 0;
            dataTo = data.limit();
        }
        return new RecordIterator(data, dataFrom, dataTo, count, baseOffset(), baseTimestamp(),
                timestampType() == TimestampType.LOG_APPEND_TIME, maxTimestamp(), baseSequence(),
                compression == Compression.NONE);
    }

    @Override
    public String toString() {
        if (buffer == null || offset > buffer.limit() - HEADER_SIZE) {
            return "RecordBatch(unwrapped or truncated)";
        }
        return "RecordBatch(baseOffset=" + baseOffset() + ", lastOffset=" + lastOffset() + ", size=" + sizeInBytes()
                + ", magic=" + magic() + ", compression=" + compressionId() + ", timestampType=" + timestampType()
                + ", producerId=" + producerId() + ", producerEpoch=" + producerEpoch() + ", baseSequence="
                + baseSequence() + ", transactional=" + isTransactional() + ", control=" + isControl()
                + ", count=" + recordsCount() + ", crc=" + crc() + ")";
    }
}
