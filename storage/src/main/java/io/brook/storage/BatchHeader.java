package io.brook.storage;

import io.brook.wire.record.RecordBatch;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Static accessors for the header fields of a stored magic-v2 batch at an absolute position, for
 * the scanning code of storage (recovery, index rebuilds, producer-state replay), which walks
 * batches inside its own read buffers. The layout and its offsets are those of
 * {@link RecordBatch} (see the diagram there); records are decoded only through
 * {@link RecordBatch#records()}.
 */
final class BatchHeader {
    static final int BASE_OFFSET = RecordBatch.BASE_OFFSET_OFFSET;
    static final int BATCH_LENGTH = RecordBatch.BATCH_LENGTH_OFFSET;
    static final int LOG_OVERHEAD = RecordBatch.LOG_OVERHEAD;
    static final int PARTITION_LEADER_EPOCH = RecordBatch.PARTITION_LEADER_EPOCH_OFFSET;
    static final int MAGIC = RecordBatch.MAGIC_OFFSET;
    static final int CRC = RecordBatch.CRC_OFFSET;
    static final int ATTRIBUTES = RecordBatch.ATTRIBUTES_OFFSET;
    static final int LAST_OFFSET_DELTA = RecordBatch.LAST_OFFSET_DELTA_OFFSET;
    static final int BASE_TIMESTAMP = RecordBatch.BASE_TIMESTAMP_OFFSET;
    static final int MAX_TIMESTAMP = RecordBatch.MAX_TIMESTAMP_OFFSET;
    static final int PRODUCER_ID = RecordBatch.PRODUCER_ID_OFFSET;
    static final int PRODUCER_EPOCH = RecordBatch.PRODUCER_EPOCH_OFFSET;
    static final int BASE_SEQUENCE = RecordBatch.BASE_SEQUENCE_OFFSET;
    static final int RECORDS_COUNT = RecordBatch.RECORDS_COUNT_OFFSET;
    static final int HEADER_SIZE = RecordBatch.HEADER_SIZE;

    static final int COMPRESSION_MASK = 0x07;
    static final int TIMESTAMP_TYPE_MASK = 0x08;
    static final int TRANSACTIONAL_MASK = 0x10;
    static final int CONTROL_MASK = 0x20;

    /** The smallest legal value of the length field: the header after the length field. */
    static final int MIN_BATCH_LENGTH = HEADER_SIZE - LOG_OVERHEAD;

    private BatchHeader() {
    }

    static long baseOffset(ByteBuffer b, int p) { return b.getLong(p + BASE_OFFSET); }
    static int batchLength(ByteBuffer b, int p) { return b.getInt(p + BATCH_LENGTH); }
    static int sizeInBytes(ByteBuffer b, int p) { return LOG_OVERHEAD + b.getInt(p + BATCH_LENGTH); }
    static int leaderEpoch(ByteBuffer b, int p) { return b.getInt(p + PARTITION_LEADER_EPOCH); }
    static byte magic(ByteBuffer b, int p) { return b.get(p + MAGIC); }
    static int crc(ByteBuffer b, int p) { return b.getInt(p + CRC); }
    static short attributes(ByteBuffer b, int p) { return b.getShort(p + ATTRIBUTES); }
    static int lastOffsetDelta(ByteBuffer b, int p) { return b.getInt(p + LAST_OFFSET_DELTA); }
    static long lastOffset(ByteBuffer b, int p) { return baseOffset(b, p) + lastOffsetDelta(b, p); }
    /**
     * Whether the batch holds {@code offset}, the offset an index entry names for it: its last
     * offset in Kafka's index files and Brook's, its base offset in those Brook wrote before it
     * followed Kafka (read as they are).
     */
    static boolean holds(ByteBuffer b, int p, long offset) { return baseOffset(b, p) <= offset && offset <= lastOffset(b, p); }
    static long baseTimestamp(ByteBuffer b, int p) { return b.getLong(p + BASE_TIMESTAMP); }
    static long maxTimestamp(ByteBuffer b, int p) { return b.getLong(p + MAX_TIMESTAMP); }
    static long producerId(ByteBuffer b, int p) { return b.getLong(p + PRODUCER_ID); }
    static short producerEpoch(ByteBuffer b, int p) { return b.getShort(p + PRODUCER_EPOCH); }
    static int baseSequence(ByteBuffer b, int p) { return b.getInt(p + BASE_SEQUENCE); }
    static int recordsCount(ByteBuffer b, int p) { return b.getInt(p + RECORDS_COUNT); }
    static int compression(ByteBuffer b, int p) { return attributes(b, p) & COMPRESSION_MASK; }
    static boolean isLogAppendTime(ByteBuffer b, int p) { return (attributes(b, p) & TIMESTAMP_TYPE_MASK) != 0; }
    static boolean isTransactional(ByteBuffer b, int p) { return (attributes(b, p) & TRANSACTIONAL_MASK) != 0; }
    static boolean isControl(ByteBuffer b, int p) { return (attributes(b, p) & CONTROL_MASK) != 0; }

    /** Sequence of the last record; sequences wrap from Integer.MAX_VALUE to 0. */
    static int lastSequence(ByteBuffer b, int p) {
        int base = baseSequence(b, p);
        if (base < 0) {
            return base;
        }
        long last = (long) base + lastOffsetDelta(b, p);
        return (int) (last > Integer.MAX_VALUE ? last - Integer.MAX_VALUE - 1 : last);
    }

    static void setBaseOffset(ByteBuffer b, int p, long offset) { b.putLong(p + BASE_OFFSET, offset); }
    static void setLeaderEpoch(ByteBuffer b, int p, int epoch) { b.putInt(p + PARTITION_LEADER_EPOCH, epoch); }

    /** CRC-32C of [attributes, end of batch) — what the CRC field must hold. */
    static int computeCrc(ByteBuffer b, int p, int size) {
        CRC32C crc = new CRC32C();
        ByteBuffer view = b.duplicate();
        view.limit(p + size).position(p + ATTRIBUTES);
        crc.update(view);
        return (int) crc.getValue();
    }

    /**
     * Checks a stored batch that starts at {@code p} and of which {@code available} bytes are in
     * the buffer: magic, length bounds, offset delta and CRC. Returns null when sound, else why not.
     */
    static String checkStored(ByteBuffer b, int p, int available) {
        if (available < HEADER_SIZE) {
            return "truncated header (" + available + " bytes)";
        }
        int length = batchLength(b, p);
        if (length < MIN_BATCH_LENGTH) {
            return "batch length " + length + " below minimum " + MIN_BATCH_LENGTH;
        }
        if (length > available - LOG_OVERHEAD) {
            return "batch length " + length + " exceeds remaining " + (available - LOG_OVERHEAD) + " bytes";
        }
        if (magic(b, p) != 2) {
            return "magic " + magic(b, p);
        }
        if (lastOffsetDelta(b, p) < 0) {
            return "negative last offset delta " + lastOffsetDelta(b, p);
        }
        int crc = computeCrc(b, p, LOG_OVERHEAD + length);
        if (crc != crc(b, p)) {
            return "crc mismatch (stored " + Integer.toHexString(crc(b, p)) + ", computed " + Integer.toHexString(crc) + ")";
        }
        return null;
    }
}
