package io.brook.wire.record;

import io.brook.wire.protocol.ProtocolDecodeException;
import io.brook.wire.protocol.Varints;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * Decodes the records section of one batch (already decompressed) from absolute index
 * {@code from} to {@code to} of {@code data}. Every length is checked against the bytes left in
 * its record and every record against the bytes left in the section before anything is sliced or
 * allocated; any violation is a {@link CorruptRecordException}. After the last of
 * {@code count} records the section must be used up exactly.
 *
 * <p>Record layout (all integers zig-zag varints except attributes):
 * <pre>
 *  length varint | attributes int8 | timestampDelta varlong | offsetDelta varint |
 *  keyLength varint (-1 = null) | key | valueLength varint (-1 = null) | value |
 *  headerCount varint | headerCount x (keyLength varint | UTF-8 key | valueLength varint | value)
 * </pre>
 */
final class RecordIterator implements Iterator<Record> {
    /** A header needs at least its key length and value length, one byte each. */
    private static final int MIN_HEADER_SIZE = 2;

    private final ByteBuffer data;
    /** A private view of {@link #data}: position at the next byte, limit at the end of the record or section. */
    private final ByteBuffer in;
    private final int to;
    private final int count;
    private final long baseOffset;
    private final long baseTimestamp;
    private final boolean logAppendTimeType;
    private final long logAppendTime;
    private final int baseSequence;
    private final boolean readOnlySlices;
    private int read;
    private boolean failed;

    RecordIterator(ByteBuffer data, int from, int to, int count, long baseOffset, long baseTimestamp,
                   boolean logAppendTimeType, long logAppendTime, int baseSequence, boolean readOnlySlices) {
        this.data = data;
        this.in = data.duplicate();
        this.in.limit(to).position(from);
        this.to = to;
        this.count = count;
        this.baseOffset = baseOffset;
        this.baseTimestamp = baseTimestamp;
        this.logAppendTimeType = logAppendTimeType;
        this.logAppendTime = logAppendTime;
        this.baseSequence = baseSequence;
        this.readOnlySlices = readOnlySlices;
    }

    @Override
    public boolean hasNext() {
        return !failed && read < count;
    }

    /**
     * The next record.
     *
     * @throws CorruptRecordException if it cannot be decoded; the iterator then reports no more
     *         records, since nothing after a bad length can be trusted
     */
    @Override
    public Record next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        try {
            return decode();
        } catch (CorruptRecordException e) {
            failed = true;
            throw e;
        }
    }

    private Record decode() {
        int start = in.position();
        int length = readVarint("length");
        if (length < 0 || length > in.remaining()) {
            throw corrupt("length " + length + " exceeds the " + in.remaining() + " bytes that remain in the batch");
        }
        int end = in.position() + length;
        in.limit(end);
        if (!in.hasRemaining()) {
            throw corrupt("attributes: record of length 0");
        }
        in.get(); // the record's attributes: unused by the format
        long timestampDelta = readVarlong("timestampDelta");
        int offsetDelta = readVarint("offsetDelta");
        ByteBuffer key = readNullableBytes("key");
        ByteBuffer value = readNullableBytes("value");
        int headerCount = readVarint("headerCount");
        if (headerCount < 0 || headerCount > in.remaining() / MIN_HEADER_SIZE) {
            throw corrupt("headerCount " + headerCount + " does not fit in the " + in.remaining()
                    + " bytes left in the record");
        }
        List<RecordHeader> headers;
        if (headerCount == 0) {
            headers = Collections.emptyList();
        } else {
            List<RecordHeader> list = new ArrayList<>(headerCount);
            for (int i = 0; i < headerCount; i++) {
                int keyLength = readVarint("header key length");
                if (keyLength < 0 || keyLength > in.remaining()) {
                    throw corrupt("header key length " + keyLength + " outside [0, " + in.remaining() + "]");
                }
                String headerKey = utf8(in.position(), keyLength);
                in.position(in.position() + keyLength);
                list.add(new RecordHeader(headerKey, readNullableBytes("header value")));
            }
            headers = Collections.unmodifiableList(list);
        }
        if (in.hasRemaining()) {
            throw corrupt("length " + length + " but its fields end " + in.remaining() + " bytes earlier");
        }
        in.limit(to);
        read++;
        if (read == count && in.hasRemaining()) {
            throw corrupt(in.remaining() + " bytes remain after the last of " + count + " records");
        }
        long timestamp = logAppendTimeType ? logAppendTime : baseTimestamp + timestampDelta;
        int sequence = baseSequence < 0 ? RecordBatch.NO_SEQUENCE
                : RecordBatch.incrementSequence(baseSequence, offsetDelta);
        return new Record(baseOffset + offsetDelta, offsetDelta, timestamp, sequence, key, value, headers,
                end - start);
    }

    private ByteBuffer readNullableBytes(String field) {
        int length = readVarint(field + " length");
        if (length < 0) {
            return null; // -1 by the format; any negative length has always been read as null
        }
        if (length > in.remaining()) {
            throw corrupt(field + " length " + length + " exceeds the " + in.remaining()
                    + " bytes left in the record");
        }
        int at = in.position();
        ByteBuffer slice = data.slice(at, length);
        in.position(at + length);
        return readOnlySlices ? slice.asReadOnlyBuffer() : slice;
    }

    private String utf8(int at, int length) {
        if (data.hasArray()) {
            return new String(data.array(), data.arrayOffset() + at, length, StandardCharsets.UTF_8);
        }
        byte[] bytes = new byte[length];
        data.get(at, bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private int readVarint(String field) {
        try {
            return Varints.readVarint(in, field);
        } catch (ProtocolDecodeException e) {
            throw corrupt(e.getMessage());
        }
    }

    private long readVarlong(String field) {
        try {
            return Varints.readVarlong(in, field);
        } catch (ProtocolDecodeException e) {
            throw corrupt(e.getMessage());
        }
    }

    private CorruptRecordException corrupt(String detail) {
        return new CorruptRecordException("record " + read + " of " + count + " (batch base offset " + baseOffset
                + "): " + detail);
    }
}
