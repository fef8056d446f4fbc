package io.brook.wire.record;

import java.nio.ByteBuffer;

/**
 * Compression codec of a record batch: the value of attribute bits 0-2. The id is part of the
 * format and never changes; ids 5-7 are unassigned.
 */
public enum Compression {
    NONE(0),
    GZIP(1),
    /** snappy-java's framed format; plain (unframed) snappy is also accepted on read. */
    SNAPPY(2),
    /** The LZ4 frame format (magic 0x184D2204). */
    LZ4(3),
    ZSTD(4);

    private static final Compression[] BY_ID = values();

    private final int id;

    Compression(int id) {
        this.id = id;
    }

    /** The codec's id in the batch attributes (0-4). */
    public int id() {
        return id;
    }

    /** The codec with this id, or {@code null} if none is assigned to it. Never allocates. */
    public static Compression forId(int id) {
        return id >= 0 && id < BY_ID.length ? BY_ID[id] : null;
    }

    /**
     * Decompresses the remaining bytes of {@code src} (its position untouched) in this codec's
     * stream format, as the Java clients write it, into a new heap buffer of at most
     * {@code maxBytes} bytes: for payloads other than record batches (a KIP-714 telemetry push).
     *
     * @throws CorruptRecordException if the input is not a valid stream of this codec or its
     *         output would exceed {@code maxBytes}
     * @throws IllegalArgumentException for {@link #NONE}
     */
    public ByteBuffer decompress(ByteBuffer src, int maxBytes) {
        return CompressionCodecs.decompress(this, src, src.position(), src.limit(), maxBytes);
    }

    /** Compresses {@code in} into a new array in this codec's stream format (not for {@link #NONE}). */
    public byte[] compress(byte[] in) {
        if (this == NONE) {
            throw new IllegalArgumentException("not a compressed codec: " + this);
        }
        return CompressionCodecs.compress(this, in, 0, in.length);
    }
}
