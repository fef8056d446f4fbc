package io.brook.wire.protocol;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * Reads Kafka protocol primitives from a {@link ByteBuffer}, advancing its position.
 *
 * <p>Every read checks what remains first, and every length or count is checked against the
 * remaining bytes before anything is allocated or sliced, so hostile input can only ever produce
 * a {@link ProtocolDecodeException} — never an OutOfMemoryError, an IndexOutOfBoundsException or
 * a BufferUnderflowException. An array count is checked at its elements' minimum encoded size
 * ({@link #readArrayLength}), so what a decoder allocates follows the bytes it was sent, not the
 * counts it was told; empty strings, bytes and records cost no allocation at all. Each method takes the name of the field being read
 * ({@code "ProduceRequest.topicData"}), which the exception message starts with.
 *
 * <p>A reader may also be given a heap limit: it then estimates, before each allocation, the heap
 * the decoded message takes ({@link #heapEstimate}: generous per-object costs, so that the
 * estimate stays above what is actually allocated), and fails the read once the estimate passes
 * the limit. Bytes bound what a message can allocate; the limit bounds it in bytes of heap, since
 * a body of tiny elements expands up to about 26-fold (docs/protocol.md, "Bounded decoding").
 *
 * <p>Not thread-safe; one reader per buffer being decoded.
 */
public final class ProtocolReader {

    private static final byte[] EMPTY_BYTES = new byte[0];

    /** Estimated heap of one array element: its list slot and the struct or boxed value it holds. */
    static final int ELEMENT_COST = 72;
    /** Estimated heap of an array (its list and backing array), and of each non-empty string or bytes beyond its length. */
    static final int OBJECT_COST = 48;

    private final ByteBuffer buf;
    private final long heapLimit;
    private long heapEstimate;

    public ProtocolReader(ByteBuffer buf) {
        this(buf, Long.MAX_VALUE);
    }

    /** A reader that fails once the estimated heap of what it decoded passes {@code heapLimit} bytes. */
    public ProtocolReader(ByteBuffer buf, long heapLimit) {
        this.buf = buf;
        this.heapLimit = heapLimit;
    }

    /** The estimated heap, in bytes, of what this reader has decoded so far (an upper bound, not a measure). */
    public long heapEstimate() {
        return heapEstimate;
    }

    /** Small enough for the quick compiler to inline: the message is built apart. */
    private void charge(String field, long bytes) {
        if ((heapEstimate += bytes) > heapLimit) {
            throw overHeapLimit(field);
        }
    }

    private ProtocolDecodeException overHeapLimit(String field) {
        return error(field, "the message decodes to more than " + heapLimit + " bytes of heap");
    }

    public int remaining() {
        return buf.remaining();
    }

    public int position() {
        return buf.position();
    }

    private static ProtocolDecodeException error(String field, String problem) {
        return new ProtocolDecodeException(field + ": " + problem);
    }

    private void need(String field, int bytes) {
        if (buf.remaining() < bytes) {
            throw error(field, "needs " + bytes + " bytes but only " + buf.remaining() + " remain");
        }
    }

    public byte readInt8(String field) {
        need(field, 1);
        return buf.get();
    }

    public short readInt16(String field) {
        need(field, 2);
        return buf.getShort();
    }

    public int readInt32(String field) {
        need(field, 4);
        return buf.getInt();
    }

    public long readInt64(String field) {
        need(field, 8);
        return buf.getLong();
    }

    public int readUint16(String field) {
        return readInt16(field) & 0xFFFF;
    }

    public long readUint32(String field) {
        return readInt32(field) & 0xFFFFFFFFL;
    }

    public double readFloat64(String field) {
        need(field, 8);
        return buf.getDouble();
    }

    /** Any non-zero byte is true, as in Kafka's own reader. */
    public boolean readBoolean(String field) {
        return readInt8(field) != 0;
    }

    public UUID readUuid(String field) {
        need(field, 16);
        charge(field, 32);
        return new UUID(buf.getLong(), buf.getLong());
    }

    /** An unsigned varint of at most 5 bytes; the result is an unsigned 32-bit value. */
    public int readUnsignedVarint(String field) {
        return Varints.readUnsignedVarint(buf, field);
    }

    /**
     * Reads a length prefix: int16 (classic strings), int32 (classic bytes/arrays) or an unsigned
     * varint of length+1 (compact forms). Returns -1 for null, which callers reject where the
     * field is not nullable. Rejects other negative values, and lengths whose {@code unit}-byte
     * items cannot fit in the remaining bytes ({@code unit} is 1 for strings, bytes and records,
     * an element's minimum encoded size for arrays).
     */
    private int readLength(String field, String kind, int prefix, boolean nullable, int unit) {
        int length;
        if (prefix == PREFIX_INT16) {
            length = readInt16(field);
        } else if (prefix == PREFIX_INT32) {
            length = readInt32(field);
        } else {
            int raw = readUnsignedVarint(field);
            if (raw < 0) { // unsigned value >= 2^31: cannot be a valid length
                throw error(field, kind + " length " + (Integer.toUnsignedLong(raw) - 1)
                        + " exceeds remaining " + buf.remaining() + " bytes");
            }
            length = raw - 1;
        }
        if (length < 0) {
            if (length == -1) {
                if (!nullable) {
                    throw error(field, "null " + kind + " in a non-nullable field");
                }
                return -1;
            }
            throw error(field, "negative " + kind + " length " + length);
        }
        if ((long) length * unit > buf.remaining()) {
            throw error(field, kind + " length " + length + (unit == 1 ? "" : " of elements of at least " + unit
                    + " bytes") + " exceeds remaining " + buf.remaining() + " bytes");
        }
        return length;
    }

    private static final int PREFIX_INT16 = 0;
    private static final int PREFIX_INT32 = 1;
    private static final int PREFIX_COMPACT = 2;

    /** A string: int16 length (classic) or compact; null only when {@code nullable}. */
    public String readString(String field, boolean compact, boolean nullable) {
        int length = readLength(field, "string", compact ? PREFIX_COMPACT : PREFIX_INT16, nullable, 1);
        if (length <= 0) {
            return length == 0 ? "" : null; // "" is a constant: an empty string costs no allocation
        }
        charge(field, OBJECT_COST + 2L * length); // the bytes, and a String of its own for any not Latin-1
        String s;
        if (buf.hasArray()) {
            s = new String(buf.array(), buf.arrayOffset() + buf.position(), length, StandardCharsets.UTF_8);
            buf.position(buf.position() + length);
        } else {
            byte[] bytes = new byte[length];
            buf.get(bytes);
            s = new String(bytes, StandardCharsets.UTF_8);
        }
        return s;
    }

    /** A bytes field: int32 length (classic) or compact, copied into a new array. */
    public byte[] readBytes(String field, boolean compact, boolean nullable) {
        int length = readLength(field, "bytes", compact ? PREFIX_COMPACT : PREFIX_INT32, nullable, 1);
        if (length <= 0) {
            return length == 0 ? EMPTY_BYTES : null;
        }
        charge(field, OBJECT_COST + length);
        byte[] bytes = new byte[length];
        buf.get(bytes);
        return bytes;
    }

    /**
     * A records field: a read-only slice of the underlying buffer, no copy; an empty one costs
     * nothing ({@link BufferRecords#EMPTY}). The intermediate writable slice (when the buffer is
     * writable) does not escape, so the JIT usually leaves one buffer object and its wrapper.
     */
    public Records readRecords(String field, boolean compact, boolean nullable) {
        int length = readLength(field, "records", compact ? PREFIX_COMPACT : PREFIX_INT32, nullable, 1);
        if (length <= 0) {
            return length == 0 ? BufferRecords.EMPTY : null;
        }
        charge(field, 2 * OBJECT_COST);
        int start = buf.position();
        ByteBuffer slice = buf.slice(start, length);
        BufferRecords records = BufferRecords.ofReadOnlySlice(slice.isReadOnly() ? slice : slice.asReadOnlyBuffer());
        buf.position(start + length);
        return records;
    }

    /**
     * An array count: int32 (classic) or compact. Returns -1 for null (only when nullable).
     * {@code minElementSize} is the fewest bytes one element can take (the generated readers
     * compute it from the schema: 4 for an int32, 1 for a compact string, a struct's fields'
     * minimums, ...); a count whose elements cannot fit in the remaining bytes is rejected here,
     * before the caller sizes a list for it. Values below 1 count as 1.
     */
    public int readArrayLength(String field, boolean compact, boolean nullable, int minElementSize) {
        int length = readLength(field, "array", compact ? PREFIX_COMPACT : PREFIX_INT32, nullable,
                Math.max(1, minElementSize));
        if (length >= 0) {
            charge(field, OBJECT_COST + (long) ELEMENT_COST * length);
        }
        return length;
    }

    /** The int8 marker of a nullable struct: -1 = null (returns false), 1 = present (true). */
    public boolean readStructMarker(String field, boolean nullable) {
        byte marker = readInt8(field);
        if (marker < 0) {
            if (!nullable) {
                throw error(field, "null struct in a non-nullable field");
            }
            return false;
        }
        return true;
    }

    /** Number of entries of a tagged-field section; each entry takes at least two bytes. */
    public int readTaggedFieldCount(String field) {
        int count = readUnsignedVarint(field);
        if (count < 0 || count > buf.remaining() / 2) {
            throw error(field, "tagged field count " + Integer.toUnsignedLong(count)
                    + " exceeds remaining " + buf.remaining() + " bytes");
        }
        return count;
    }

    /** A tagged field's payload size, checked against what remains. */
    public int readTaggedFieldSize(String field) {
        int size = readUnsignedVarint(field);
        if (size < 0 || size > buf.remaining()) {
            throw error(field, "tagged field size " + Integer.toUnsignedLong(size)
                    + " exceeds remaining " + buf.remaining() + " bytes");
        }
        return size;
    }

    /** Skips {@code bytes} bytes (checked). */
    public void skip(String field, int bytes) {
        if (bytes < 0) {
            throw error(field, "negative skip " + bytes);
        }
        need(field, bytes);
        buf.position(buf.position() + bytes);
    }

    /**
     * Reads a whole tagged-field section and skips every entry: for structs that have no known
     * tagged fields. Like Kafka, the order of tags is not enforced on read.
     */
    public void skipTaggedFields(String field) {
        int count = readTaggedFieldCount(field);
        for (int i = 0; i < count; i++) {
            readUnsignedVarint(field);
            skip(field, readTaggedFieldSize(field));
        }
    }
}
