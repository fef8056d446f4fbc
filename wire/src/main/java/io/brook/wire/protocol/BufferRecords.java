package io.brook.wire.protocol;

import java.nio.ByteBuffer;

/**
 * Records held in a {@link ByteBuffer}: for decoded requests a slice of the request buffer (no
 * copy). Equality compares content.
 */
public final class BufferRecords implements Records {

    public static final BufferRecords EMPTY = new BufferRecords(ByteBuffer.allocate(0));

    private final ByteBuffer buffer;

    private BufferRecords(ByteBuffer buffer) {
        this.buffer = buffer;
    }

    /** Wraps the remaining bytes of {@code buffer} (position..limit); shares, never copies. */
    public static BufferRecords wrap(ByteBuffer buffer) {
        return new BufferRecords(buffer.slice().asReadOnlyBuffer());
    }

    /** Takes {@code slice} as it is: read-only, positioned at 0, not shared with a writer. */
    static BufferRecords ofReadOnlySlice(ByteBuffer slice) {
        return new BufferRecords(slice);
    }

    /** A read-only view of the bytes, positioned at 0; a new view per call, so callers may move it. */
    public ByteBuffer buffer() {
        return buffer.duplicate();
    }

    /** The big-endian int16 at {@code index} (0 = the first byte), without making a view. */
    public short shortAt(int index) {
        return buffer.getShort(index);
    }

    @Override
    public int sizeInBytes() {
        return buffer.remaining();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BufferRecords other && buffer.equals(other.buffer);
    }

    @Override
    public int hashCode() {
        return buffer.hashCode();
    }

    @Override
    public String toString() {
        return "BufferRecords(" + buffer.remaining() + " bytes)";
    }
}
