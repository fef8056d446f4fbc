package io.brook.wire.protocol;

import java.nio.ByteBuffer;
import java.util.UUID;

/**
 * The sink generated message codecs encode into. All multi-byte integers are big-endian.
 *
 * <p>{@link ByteBufferWriter} writes into a heap or direct buffer. A network layer may implement
 * this interface itself so that {@link #writeRecords(Records)} of file-backed records becomes a
 * zero-copy file region instead of a copy.
 */
public interface ProtocolWriter {

    void writeByte(byte value);

    void writeShort(short value);

    void writeInt(int value);

    void writeLong(long value);

    void writeDouble(double value);

    default void writeBoolean(boolean value) {
        writeByte(value ? (byte) 1 : (byte) 0);
    }

    default void writeUuid(UUID value) {
        writeLong(value.getMostSignificantBits());
        writeLong(value.getLeastSignificantBits());
    }

    /** LEB128: seven bits per byte, least significant group first; {@code value} is unsigned. */
    default void writeUnsignedVarint(int value) {
        while ((value & 0xFFFFFF80) != 0) {
            writeByte((byte) ((value & 0x7F) | 0x80));
            value >>>= 7;
        }
        writeByte((byte) value);
    }

    /** Zig-zag encoded signed 32-bit varint (used inside records). */
    default void writeVarint(int value) {
        writeUnsignedVarint((value << 1) ^ (value >> 31));
    }

    /** Zig-zag encoded signed 64-bit varlong (used inside records). */
    default void writeVarlong(long value) {
        long v = (value << 1) ^ (value >> 63);
        while ((v & 0xFFFFFFFFFFFFFF80L) != 0) {
            writeByte((byte) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        writeByte((byte) v);
    }

    /** Writes the remaining bytes of {@code src} without moving its position. */
    void writeBytes(ByteBuffer src);

    default void writeByteArray(byte[] src) {
        writeBytes(ByteBuffer.wrap(src));
    }

    /**
     * Writes the UTF-8 encoding of {@code value}, which must be exactly {@code utf8Length} bytes
     * (as computed by {@link Utf8#encodedLength(String)}); no length prefix. Implementations
     * should encode straight into their output so that a string is encoded once per write.
     */
    default void writeUtf8(String value, int utf8Length) {
        byte[] bytes = value.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        if (bytes.length != utf8Length) {
            throw new IllegalArgumentException("UTF-8 length " + bytes.length + " != expected " + utf8Length);
        }
        writeByteArray(bytes);
    }

    /** Writes the bytes of a records field (no length prefix). */
    void writeRecords(Records records);
}
