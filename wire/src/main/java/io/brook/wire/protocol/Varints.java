package io.brook.wire.protocol;

import java.nio.ByteBuffer;

/**
 * The one varint codec of the wire module. Kafka uses two forms:
 * <ul>
 *   <li>unsigned varints (LEB128: seven bits per byte, least significant group first, the high
 *       bit set on every byte but the last), at most 5 bytes: compact lengths, tagged-field tags
 *       and sizes (KIP-482);</li>
 *   <li>zig-zag varints and varlongs ({@code (n << 1) ^ (n >> 31)}, then LEB128, so small
 *       negative numbers stay short), at most 5 and 10 bytes: the fields inside records.</li>
 * </ul>
 * Readers accept any encoding within those lengths, as Kafka's do (a value padded with
 * {@code 0x80} bytes included). Reading takes bytes from the buffer's position up to its limit
 * and advances the position; a truncated or over-long value is a {@link ProtocolDecodeException}
 * whose message starts with the given field name.
 */
public final class Varints {

    private Varints() {
    }

    /** Bytes needed for {@code value} as an unsigned varint (1..5). */
    public static int sizeOfUnsignedVarint(int value) {
        // 7 payload bits per byte; 32 - numberOfLeadingZeros = significant bits (0 counts as 1 byte)
        int bits = 32 - Integer.numberOfLeadingZeros(value);
        return bits == 0 ? 1 : (bits + 6) / 7;
    }

    /** Bytes needed for {@code value} as a zig-zag varint (1..5). */
    public static int sizeOfVarint(int value) {
        return sizeOfUnsignedVarint(zigZag(value));
    }

    /** Bytes needed for {@code value} as a zig-zag varlong (1..10). */
    public static int sizeOfVarlong(long value) {
        int bits = 64 - Long.numberOfLeadingZeros(zigZag(value));
        return bits == 0 ? 1 : (bits + 6) / 7;
    }

    /** Writes {@code value}, taken as unsigned, as an unsigned varint. */
    public static void writeUnsignedVarint(int value, ProtocolWriter out) {
        writeUnsignedVarlong(value & 0xFFFFFFFFL, out);
    }

    /** Writes {@code value} as a zig-zag varint. */
    public static void writeVarint(int value, ProtocolWriter out) {
        writeUnsignedVarint(zigZag(value), out);
    }

    /** Writes {@code value} as a zig-zag varlong. */
    public static void writeVarlong(long value, ProtocolWriter out) {
        writeUnsignedVarlong(zigZag(value), out);
    }

    private static void writeUnsignedVarlong(long value, ProtocolWriter out) {
        long v = value;
        while ((v & ~0x7FL) != 0) {
            out.writeByte((byte) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.writeByte((byte) v);
    }

    /** Reads an unsigned varint of at most 5 bytes; the result is an unsigned 32-bit value. */
    public static int readUnsignedVarint(ByteBuffer in, String field) {
        return (int) readUnsignedVarlong(in, field, 5, "varint");
    }

    /** Reads a zig-zag varint of at most 5 bytes. */
    public static int readVarint(ByteBuffer in, String field) {
        int raw = readUnsignedVarint(in, field);
        return (raw >>> 1) ^ -(raw & 1);
    }

    /** Reads a zig-zag varlong of at most 10 bytes. */
    public static long readVarlong(ByteBuffer in, String field) {
        long raw = readUnsignedVarlong(in, field, 10, "varlong");
        return (raw >>> 1) ^ -(raw & 1);
    }

    private static long readUnsignedVarlong(ByteBuffer in, String field, int maxBytes, String kind) {
        long value = 0;
        for (int i = 0; i < maxBytes; i++) {
            if (!in.hasRemaining()) {
                throw new ProtocolDecodeException(field + ": truncated " + kind);
            }
            byte b = in.get();
            value |= (long) (b & 0x7F) << (7 * i);
            if (b >= 0) {
                return value;
            }
        }
        throw new ProtocolDecodeException(field + ": " + kind + " longer than " + maxBytes + " bytes");
    }

    private static int zigZag(int value) {
        return (value << 1) ^ (value >> 31);
    }

    private static long zigZag(long value) {
        return (value << 1) ^ (value >> 63);
    }
}
