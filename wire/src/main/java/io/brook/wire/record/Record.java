package io.brook.wire.record;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * One decoded record of a batch, with its offset and timestamp already resolved against the
 * batch header. Key, value and header values are read-only buffers positioned at their first byte
 * (slices of the batch for an uncompressed batch, of the decompressed section otherwise); they are
 * {@code null} where the record has none.
 */
public final class Record {
    private final long offset;
    private final int offsetDelta;
    private final long timestamp;
    private final int sequence;
    private final ByteBuffer key;
    private final ByteBuffer value;
    private final List<RecordHeader> headers;
    private final int sizeInBytes;

    Record(long offset, int offsetDelta, long timestamp, int sequence, ByteBuffer key, ByteBuffer value,
           List<RecordHeader> headers, int sizeInBytes) {
        this.offset = offset;
        this.offsetDelta = offsetDelta;
        this.timestamp = timestamp;
        this.sequence = sequence;
        this.key = key;
        this.value = value;
        this.headers = headers;
        this.sizeInBytes = sizeInBytes;
    }

    /** baseOffset + offsetDelta. */
    public long offset() {
        return offset;
    }

    public int offsetDelta() {
        return offsetDelta;
    }

    /**
     * baseTimestamp + timestampDelta, or the batch's maxTimestamp for a LogAppendTime batch (the
     * broker's append time applies to every record).
     */
    public long timestamp() {
        return timestamp;
    }

    /** baseSequence + offsetDelta (wrapping past Int.MAX to 0), or -1 without a producer sequence. */
    public int sequence() {
        return sequence;
    }

    /** The key, or {@code null}. Each call returns a fresh view, so reading it is side-effect free. */
    public ByteBuffer key() {
        return key == null ? null : key.duplicate();
    }

    /** The value, or {@code null} (a tombstone on a compacted topic). A fresh view per call. */
    public ByteBuffer value() {
        return value == null ? null : value.duplicate();
    }

    public boolean hasKey() {
        return key != null;
    }

    public boolean hasValue() {
        return value != null;
    }

    public List<RecordHeader> headers() {
        return headers;
    }

    /** Encoded size of the record including its length prefix. */
    public int sizeInBytes() {
        return sizeInBytes;
    }

    @Override
    public String toString() {
        return "Record(offset=" + offset + ", timestamp=" + timestamp + ", key="
                + (key == null ? "null" : key.remaining() + " bytes") + ", value="
                + (value == null ? "null" : value.remaining() + " bytes") + ", headers=" + headers.size() + ")";
    }
}
