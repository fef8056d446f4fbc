package io.brook.wire.record;

import java.nio.ByteBuffer;

/**
 * Walks the batches of a {@code records} buffer (Produce or Fetch data, or a log segment read):
 * a concatenation of whole batches that may end with a partial one. The same flyweight is
 * returned for every batch; nothing is allocated. {@link #next()} returns {@code null} when it
 * cannot go on, and {@link #status()} and {@link #position()} then say why and where:
 * <ul>
 *   <li>{@link Status#END}: every byte was consumed;</li>
 *   <li>{@link Status#TRUNCATED}: the rest is a batch cut short (fewer bytes than its length
 *       field claims, or not even a length field). Fetch responses may legitimately end so;
 *       a log ending so has a torn write;</li>
 *   <li>{@link Status#CORRUPT}: a batch length smaller than a header, or a magic that is neither
 *       2 nor an older one;</li>
 *   <li>{@link Status#UNSUPPORTED_MAGIC}: a whole message set of magic 0 or 1.</li>
 * </ul>
 * Only the framing (length, magic) is checked here; CRC and header checks are the caller's
 * choice ({@link RecordBatch#isCrcValid()}, {@link RecordBatch#validateClientBatch(int)}).
 * Not thread-safe.
 */
public final class RecordBatches {
    /** Where the walk stands. */
    public enum Status {
        /** {@link #next()} has not yet returned {@code null}. */
        MORE,
        END,
        TRUNCATED,
        CORRUPT,
        UNSUPPORTED_MAGIC
    }

    private final RecordBatch batch = new RecordBatch();
    private ByteBuffer buffer;
    private int start;
    private int position;
    private int end;
    private Status status = Status.END;

    /** Walks bytes [position, limit) of {@code buf}; the buffer's position is not changed. */
    public RecordBatches wrap(ByteBuffer buf) {
        return wrap(buf, buf.position(), buf.limit());
    }

    /** Walks bytes [from, to) of {@code buf} (absolute indices). */
    public RecordBatches wrap(ByteBuffer buf, int from, int to) {
        if (from < 0 || to < from || to > buf.limit()) {
            throw new IllegalArgumentException("range [" + from + ", " + to + ") outside buffer limit " + buf.limit());
        }
        batch.wrap(buf, from);
        this.buffer = buf;
        this.start = from;
        this.position = from;
        this.end = to;
        this.status = Status.MORE;
        return this;
    }

    /**
     * The next whole batch, or {@code null} at the end of the data or at a batch that cannot be
     * framed (see {@link #status()}). The returned flyweight is reused by the next call.
     */
    public RecordBatch next() {
        if (status != Status.MORE) {
            return null;
        }
        int remaining = end - position;
        if (remaining == 0) {
            status = Status.END;
            return null;
        }
        if (remaining < RecordBatch.LOG_OVERHEAD) {
            status = Status.TRUNCATED;
            return null;
        }
        int batchLength = buffer.getInt(position + RecordBatch.BATCH_LENGTH_OFFSET);
        if (batchLength < RecordBatch.HEADER_SIZE - RecordBatch.LOG_OVERHEAD) {
            status = remaining > RecordBatch.MAGIC_OFFSET && isLegacyMagic(buffer.get(position + RecordBatch.MAGIC_OFFSET))
                    ? Status.UNSUPPORTED_MAGIC : Status.CORRUPT;
            return null;
        }
        if (batchLength > remaining - RecordBatch.LOG_OVERHEAD) {
            status = Status.TRUNCATED;
            return null;
        }
        byte magic = buffer.get(position + RecordBatch.MAGIC_OFFSET);
        if (magic != RecordBatch.MAGIC) {
            status = isLegacyMagic(magic) ? Status.UNSUPPORTED_MAGIC : Status.CORRUPT;
            return null;
        }
        batch.wrap(buffer, position);
        position += RecordBatch.LOG_OVERHEAD + batchLength;
        return batch;
    }

    private static boolean isLegacyMagic(byte magic) {
        return magic == 0 || magic == 1;
    }

    public Status status() {
        return status;
    }

    /**
     * Absolute index of the first byte not yet returned: after a {@code null} from
     * {@link #next()}, where the partial or bad batch starts (or the end).
     */
    public int position() {
        return position;
    }

    /** Bytes covered by the whole batches returned so far. */
    public int validBytes() {
        return position - start;
    }
}
