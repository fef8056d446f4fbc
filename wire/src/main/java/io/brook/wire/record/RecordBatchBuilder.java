package io.brook.wire.record;

import io.brook.wire.protocol.ByteBufferWriter;
import io.brook.wire.protocol.Varints;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Writes one magic-2 record batch: header, records (offset and timestamp deltas, keys, values,
 * headers; null keys and values), compressed with any {@link Compression}, CRC-32C computed
 * last. Used where the broker writes batches itself (transaction markers, compaction, internal
 * topics) and by tests. Not thread-safe; one builder builds one batch.
 *
 * <pre>{@code
 * ByteBuffer batch = new RecordBatchBuilder(Compression.ZSTD)
 *         .baseOffset(42)
 *         .producer(producerId, epoch, baseSequence)
 *         .append(timestamp, key, value)
 *         .build();
 * }</pre>
 *
 * <p>Timestamps: baseTimestamp is the first record's timestamp, or the delete horizon when one
 * is set (then record timestamps are deltas from the horizon, possibly negative); maxTimestamp is
 * the largest record timestamp, or the log-append time for {@link TimestampType#LOG_APPEND_TIME}.
 */
public final class RecordBatchBuilder {
    private final Compression compression;
    private long baseOffset;
    private int partitionLeaderEpoch = RecordBatch.NO_PARTITION_LEADER_EPOCH;
    private TimestampType timestampType = TimestampType.CREATE_TIME;
    private long logAppendTime = RecordBatch.NO_TIMESTAMP;
    private long producerId = RecordBatch.NO_PRODUCER_ID;
    private short producerEpoch = RecordBatch.NO_PRODUCER_EPOCH;
    private int baseSequence = RecordBatch.NO_SEQUENCE;
    private boolean transactional;
    private boolean control;
    private long deleteHorizonMs = RecordBatch.NO_TIMESTAMP;
    private long emptyLastOffset = -1;

    /** The records section so far, from 0 to its position; a heap buffer. */
    private ByteBuffer records = ByteBuffer.allocate(256);
    private ByteBufferWriter writer = new ByteBufferWriter(records);
    private int count;
    private long lastOffset = -1;
    private long firstTimestamp = RecordBatch.NO_TIMESTAMP;
    private long maxTimestamp = RecordBatch.NO_TIMESTAMP;
    private boolean built;

    public RecordBatchBuilder(Compression compression) {
        if (compression == null) {
            throw new NullPointerException("compression");
        }
        this.compression = compression;
    }

    /** Offset of the first record; appends without an explicit offset continue from it. Default 0. */
    public RecordBatchBuilder baseOffset(long baseOffset) {
        requireNoRecords("baseOffset");
        this.baseOffset = baseOffset;
        return this;
    }

    /** Default {@link RecordBatch#NO_PARTITION_LEADER_EPOCH} (-1), what producers send. */
    public RecordBatchBuilder partitionLeaderEpoch(int epoch) {
        this.partitionLeaderEpoch = epoch;
        return this;
    }

    /** Marks the batch CreateTime (the default) or LogAppendTime. */
    public RecordBatchBuilder timestampType(TimestampType type) {
        this.timestampType = type;
        return this;
    }

    /** Marks the batch LogAppendTime with this append time as its maxTimestamp. */
    public RecordBatchBuilder logAppendTime(long appendTime) {
        this.timestampType = TimestampType.LOG_APPEND_TIME;
        this.logAppendTime = appendTime;
        return this;
    }

    /** Producer id, epoch and the sequence of the first record (idempotent or transactional producer). */
    public RecordBatchBuilder producer(long producerId, short producerEpoch, int baseSequence) {
        this.producerId = producerId;
        this.producerEpoch = producerEpoch;
        this.baseSequence = baseSequence;
        return this;
    }

    public RecordBatchBuilder transactional(boolean transactional) {
        this.transactional = transactional;
        return this;
    }

    /** A control batch (transaction markers); its records are appended with {@link #appendEndTransactionMarker}. */
    public RecordBatchBuilder control(boolean control) {
        this.control = control;
        return this;
    }

    /** Sets attribute bit 6 and stores {@code deleteHorizonMs} as the baseTimestamp. */
    public RecordBatchBuilder deleteHorizonMs(long deleteHorizonMs) {
        requireNoRecords("deleteHorizonMs");
        this.deleteHorizonMs = deleteHorizonMs;
        return this;
    }

    /**
     * For a batch left without records (compaction keeps such batches to preserve producer
     * state): the last offset the empty batch still accounts for. Ignored when records exist.
     */
    public RecordBatchBuilder emptyBatchLastOffset(long lastOffset) {
        this.emptyLastOffset = lastOffset;
        return this;
    }

    /** Appends a record at the next offset (baseOffset for the first). Keys and values may be null. */
    public RecordBatchBuilder append(long timestamp, ByteBuffer key, ByteBuffer value, RecordHeader... headers) {
        return appendWithOffset(count == 0 ? baseOffset : lastOffset + 1, timestamp, key, value, headers);
    }

    public RecordBatchBuilder append(long timestamp, byte[] key, byte[] value, RecordHeader... headers) {
        return append(timestamp, wrap(key), wrap(value), headers);
    }

    /**
     * Appends a record at an explicit offset, which must be above the previous record's and not
     * below baseOffset (compaction leaves gaps).
     */
    public RecordBatchBuilder appendWithOffset(long offset, long timestamp, ByteBuffer key, ByteBuffer value,
                                               RecordHeader... headers) {
        if (built) {
            throw new IllegalStateException("batch already built");
        }
        if (offset < baseOffset || (count > 0 && offset <= lastOffset)) {
            throw new IllegalArgumentException("offset " + offset + " not above the previous offset " + lastOffset
                    + " or below baseOffset " + baseOffset);
        }
        if (offset - baseOffset > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("offset " + offset + " too far from baseOffset " + baseOffset);
        }
        if (count == 0) {
            firstTimestamp = timestamp;
        }
        long base = deleteHorizonMs != RecordBatch.NO_TIMESTAMP ? deleteHorizonMs : firstTimestamp;
        int offsetDelta = (int) (offset - baseOffset);
        long timestampDelta = timestamp - base;

        byte[][] headerKeys = new byte[headers.length][];
        int bodySize = 1 + Varints.sizeOfVarlong(timestampDelta) + Varints.sizeOfVarint(offsetDelta)
                + sizeOfNullable(key) + sizeOfNullable(value) + Varints.sizeOfVarint(headers.length);
        for (int i = 0; i < headers.length; i++) {
            headerKeys[i] = headers[i].key().getBytes(StandardCharsets.UTF_8);
            bodySize += Varints.sizeOfVarint(headerKeys[i].length) + headerKeys[i].length + sizeOfNullable(headers[i].value());
        }
        ensure(Varints.sizeOfVarint(bodySize) + bodySize);
        Varints.writeVarint(bodySize, writer);
        writer.writeByte((byte) 0); // record attributes: unused
        Varints.writeVarlong(timestampDelta, writer);
        Varints.writeVarint(offsetDelta, writer);
        writeNullable(key);
        writeNullable(value);
        Varints.writeVarint(headers.length, writer);
        for (int i = 0; i < headers.length; i++) {
            Varints.writeVarint(headerKeys[i].length, writer);
            writer.writeByteArray(headerKeys[i]);
            writeNullable(headers[i].value());
        }
        count++;
        lastOffset = offset;
        if (timestamp > maxTimestamp) {
            maxTimestamp = timestamp;
        }
        return this;
    }

    /**
     * Appends the one record of a transaction marker: key {@code version int16 = 0, type int16},
     * value {@code version int16 = 0, coordinatorEpoch int32}. The batch must be a control batch.
     */
    public RecordBatchBuilder appendEndTransactionMarker(long timestamp, ControlRecordType type, int coordinatorEpoch) {
        if (!control) {
            throw new IllegalStateException("transaction markers belong in control batches");
        }
        if (type != ControlRecordType.ABORT && type != ControlRecordType.COMMIT) {
            throw new IllegalArgumentException("not a transaction marker type: " + type);
        }
        ByteBuffer key = ByteBuffer.allocate(4).putShort((short) 0).putShort(type.id()).flip();
        ByteBuffer value = ByteBuffer.allocate(6).putShort((short) 0).putInt(coordinatorEpoch).flip();
        return append(timestamp, key, value);
    }

    /**
     * A complete COMMIT or ABORT marker batch as the transaction coordinator writes it into a
     * data partition: control and transactional, the transaction's producer id and epoch, no
     * sequence, one record.
     */
    public static ByteBuffer endTransactionMarker(long baseOffset, int partitionLeaderEpoch, long producerId,
                                                  short producerEpoch, ControlRecordType type, int coordinatorEpoch,
                                                  long timestamp) {
        return new RecordBatchBuilder(Compression.NONE)
                .baseOffset(baseOffset)
                .partitionLeaderEpoch(partitionLeaderEpoch)
                .producer(producerId, producerEpoch, RecordBatch.NO_SEQUENCE)
                .transactional(true)
                .control(true)
                .appendEndTransactionMarker(timestamp, type, coordinatorEpoch)
                .build();
    }

    /** Records appended so far. */
    public int recordCount() {
        return count;
    }

    /**
     * Writes the batch into a new heap buffer of exactly its size, positioned at 0. A builder
     * without records writes an empty batch, which needs {@link #emptyBatchLastOffset(long)}.
     */
    public ByteBuffer build() {
        if (built) {
            throw new IllegalStateException("batch already built");
        }
        int lastOffsetDelta;
        long baseTimestamp;
        long batchMaxTimestamp;
        if (count == 0) {
            if (emptyLastOffset < baseOffset) {
                throw new IllegalStateException("an empty batch needs emptyBatchLastOffset >= baseOffset");
            }
            lastOffsetDelta = Math.toIntExact(emptyLastOffset - baseOffset);
            baseTimestamp = deleteHorizonMs;
            batchMaxTimestamp = timestampType == TimestampType.LOG_APPEND_TIME ? logAppendTime : RecordBatch.NO_TIMESTAMP;
        } else {
            lastOffsetDelta = (int) (lastOffset - baseOffset);
            baseTimestamp = deleteHorizonMs != RecordBatch.NO_TIMESTAMP ? deleteHorizonMs : firstTimestamp;
            batchMaxTimestamp = timestampType == TimestampType.LOG_APPEND_TIME && logAppendTime != RecordBatch.NO_TIMESTAMP
                    ? logAppendTime : maxTimestamp;
        }
        byte[] payload = records.array();
        int payloadSize = records.position();
        if (compression != Compression.NONE && count > 0) {
            payload = CompressionCodecs.compress(compression, payload, 0, payloadSize);
            payloadSize = payload.length;
        }
        if (payloadSize > Integer.MAX_VALUE - RecordBatch.HEADER_SIZE) {
            throw new IllegalStateException("batch of " + payloadSize + " bytes of records is too large");
        }
        int attributes = (count > 0 ? compression.id() : 0)
                | (timestampType == TimestampType.LOG_APPEND_TIME ? RecordBatch.TIMESTAMP_TYPE_MASK : 0)
                | (transactional ? RecordBatch.TRANSACTIONAL_FLAG_MASK : 0)
                | (control ? RecordBatch.CONTROL_FLAG_MASK : 0)
                | (deleteHorizonMs != RecordBatch.NO_TIMESTAMP ? RecordBatch.DELETE_HORIZON_FLAG_MASK : 0);

        ByteBuffer out = ByteBuffer.allocate(RecordBatch.HEADER_SIZE + payloadSize);
        out.putLong(RecordBatch.BASE_OFFSET_OFFSET, baseOffset);
        out.putInt(RecordBatch.BATCH_LENGTH_OFFSET, RecordBatch.HEADER_SIZE + payloadSize - RecordBatch.LOG_OVERHEAD);
        out.putInt(RecordBatch.PARTITION_LEADER_EPOCH_OFFSET, partitionLeaderEpoch);
        out.put(RecordBatch.MAGIC_OFFSET, RecordBatch.MAGIC);
        out.putShort(RecordBatch.ATTRIBUTES_OFFSET, (short) attributes);
        out.putInt(RecordBatch.LAST_OFFSET_DELTA_OFFSET, lastOffsetDelta);
        out.putLong(RecordBatch.BASE_TIMESTAMP_OFFSET, baseTimestamp);
        out.putLong(RecordBatch.MAX_TIMESTAMP_OFFSET, batchMaxTimestamp);
        out.putLong(RecordBatch.PRODUCER_ID_OFFSET, producerId);
        out.putShort(RecordBatch.PRODUCER_EPOCH_OFFSET, producerEpoch);
        out.putInt(RecordBatch.BASE_SEQUENCE_OFFSET, baseSequence);
        out.putInt(RecordBatch.RECORDS_COUNT_OFFSET, count);
        out.put(RecordBatch.RECORDS_OFFSET, payload, 0, payloadSize);
        out.putInt(RecordBatch.CRC_OFFSET, (int) new RecordBatch().wrap(out, 0).computeCrc());
        built = true;
        return out;
    }

    private void requireNoRecords(String what) {
        if (count > 0) {
            throw new IllegalStateException(what + " must be set before the first record");
        }
    }

    private static ByteBuffer wrap(byte[] bytes) {
        return bytes == null ? null : ByteBuffer.wrap(bytes);
    }

    private static int sizeOfNullable(ByteBuffer bytes) {
        return bytes == null ? 1 : Varints.sizeOfVarint(bytes.remaining()) + bytes.remaining();
    }

    private void writeNullable(ByteBuffer bytes) {
        if (bytes == null) {
            Varints.writeVarint(-1, writer);
            return;
        }
        int n = bytes.remaining();
        Varints.writeVarint(n, writer);
        int at = records.position();
        records.put(at, bytes, bytes.position(), n).position(at + n);
    }

    private void ensure(int extra) {
        int size = records.position();
        if (extra > Integer.MAX_VALUE - RecordBatch.HEADER_SIZE - size) {
            throw new IllegalStateException("batch would exceed 2 GiB");
        }
        int needed = size + extra;
        if (needed > records.capacity()) {
            ByteBuffer bigger = ByteBuffer.allocate((int) Math.min(Integer.MAX_VALUE - RecordBatch.HEADER_SIZE,
                    Math.max(needed, 2L * records.capacity())));
            bigger.put(records.array(), 0, size);
            records = bigger;
            writer = new ByteBufferWriter(bigger);
        }
    }
}
