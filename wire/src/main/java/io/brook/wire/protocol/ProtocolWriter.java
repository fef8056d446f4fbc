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

    /** An unsigned varint ({@link Varints}); {@code value} is taken as unsigned. */
    default void writeUnsignedVarint(int value) {
        Varints.writeUnsignedVarint(value, this);
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
