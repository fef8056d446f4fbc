package io.brook.wire.record;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * One header of a record: a non-null UTF-8 key and a value that may be {@code null}. Decoded
 * values are read-only buffers; two headers are equal when keys and value bytes are.
 */
public record RecordHeader(String key, ByteBuffer value) {
    public RecordHeader {
        Objects.requireNonNull(key, "header key");
    }

    /** A header whose value is the bytes of {@code value} (or null). */
    public static RecordHeader of(String key, byte[] value) {
        return new RecordHeader(key, value == null ? null : ByteBuffer.wrap(value));
    }
}
