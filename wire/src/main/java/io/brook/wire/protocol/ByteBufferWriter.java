package io.brook.wire.protocol;

import java.nio.ByteBuffer;

/**
 * A {@link ProtocolWriter} into a {@link ByteBuffer} (heap or direct), starting at its position.
 * Overflowing the buffer throws {@link java.nio.BufferOverflowException}: callers size the buffer
 * with {@link ApiMessage#size(short)} first.
 */
public final class ByteBufferWriter implements ProtocolWriter {

    private final ByteBuffer buf;

    public ByteBufferWriter(ByteBuffer buf) {
        this.buf = buf;
    }

    @Override
    public void writeByte(byte value) {
        buf.put(value);
    }

    @Override
    public void writeShort(short value) {
        buf.putShort(value);
    }

    @Override
    public void writeInt(int value) {
        buf.putInt(value);
    }

    @Override
    public void writeLong(long value) {
        buf.putLong(value);
    }

    @Override
    public void writeDouble(double value) {
        buf.putDouble(value);
    }

    @Override
    public void writeBytes(ByteBuffer src) {
        buf.put(src.duplicate());
    }

    @Override
    public void writeByteArray(byte[] src) {
        buf.put(src);
    }

    @Override
    public void writeUtf8(String value, int utf8Length) {
        int start = buf.position();
        int n = value.length();
        for (int i = 0; i < n; i++) {
            char c = value.charAt(i);
            if (c < 0x80) {
                buf.put((byte) c);
            } else if (c < 0x800) {
                buf.put((byte) (0xC0 | (c >> 6)));
                buf.put((byte) (0x80 | (c & 0x3F)));
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(value.charAt(i + 1))) {
                int cp = Character.toCodePoint(c, value.charAt(++i));
                buf.put((byte) (0xF0 | (cp >> 18)));
                buf.put((byte) (0x80 | ((cp >> 12) & 0x3F)));
                buf.put((byte) (0x80 | ((cp >> 6) & 0x3F)));
                buf.put((byte) (0x80 | (cp & 0x3F)));
            } else if (Character.isSurrogate(c)) {
                buf.put((byte) '?'); // what String.getBytes(UTF_8) does with an unpaired surrogate
            } else {
                buf.put((byte) (0xE0 | (c >> 12)));
                buf.put((byte) (0x80 | ((c >> 6) & 0x3F)));
                buf.put((byte) (0x80 | (c & 0x3F)));
            }
        }
        if (buf.position() - start != utf8Length) {
            throw new IllegalArgumentException("UTF-8 length " + (buf.position() - start) + " != expected " + utf8Length);
        }
    }

    @Override
    public void writeRecords(Records records) {
        if (records instanceof BufferRecords buffered) {
            buf.put(buffered.buffer());
        } else {
            throw new IllegalArgumentException("ByteBufferWriter cannot write " + records.getClass().getName()
                    + "; use a ProtocolWriter that knows this Records type");
        }
    }
}
