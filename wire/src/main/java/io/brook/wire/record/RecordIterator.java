package io.brook.wire.record;

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
    private final int to;
    private final int count;
    private final long baseOffset;
    private final long baseTimestamp;
    private final boolean logAppendTimeType;
    private final long logAppendTime;
    private final int baseSequence;
    private final boolean readOnlySlices;
    private int position;
    private int read;
    private boolean failed;

    RecordIterator(ByteBuffer data, int from, int to, int count, long baseOffset, long baseTimestamp,
                   boolean logAppendTimeType, long logAppendTime, int baseSequence, boolean readOnlySlices) {
        this.data = data;
        this.position = from;
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
        int start = position;
        int length = readVarint(to, "length");
        if (length < 0 || length > to - position) {
            throw corrupt("length " + length + " exceeds the " + (to - position) + " bytes that remain in the batch");
        }
        int end = position + length;
        if (position >= end) {
            throw corrupt("attributes: record of length 0");
        }
        byte attributes = data.get(position++);
        long timestampDelta = readVarlong(end, "timestampDelta");
        int offsetDelta = readVarint(end, "offsetDelta");
        ByteBuffer key = readNullableBytes(end, "key");
        ByteBuffer value = readNullableBytes(end, "value");
        int headerCount = readVarint(end, "headerCount");
        if (headerCount < 0 || headerCount > (end - position) / MIN_HEADER_SIZE) {
            throw corrupt("headerCount " + headerCount + " does not fit in the " + (end - position)
                    + " bytes left in the record");
        }
        List<RecordHeader> headers;
        if (headerCount == 0) {
            headers = Collections.emptyList();
        } else {
            List<RecordHeader> list = new ArrayList<>(headerCount);
            for (int i = 0; i < headerCount; i++) {
                int keyLength = readVarint(end, "header key length");
                if (keyLength < 0 || keyLength > end - position) {
                    throw corrupt("header key length " + keyLength + " outside [0, " + (end - position) + "]");
                }
                String headerKey = utf8(position, keyLength);
                position += keyLength;
                list.add(new RecordHeader(headerKey, readNullableBytes(end, "header value")));
            }
            headers = Collections.unmodifiableList(list);
        }
        if (position != end) {
            throw corrupt("length " + length + " but its fields end " + (end - position) + " bytes earlier");
        }
        read++;
        if (read == count && position != to) {
            throw corrupt((to - position) + " bytes remain after the last of " + count + " records");
        }
        long timestamp = logAppendTimeType ? logAppendTime : baseTimestamp + timestampDelta;
        int sequence = baseSequence < 0 ? RecordBatch.NO_SEQUENCE
                : RecordBatch.incrementSequence(baseSequence, offsetDelta);
        return new Record(baseOffset + offsetDelta, offsetDelta, timestamp, timestampDelta, sequence, attributes,
                key, value, headers, end - start);
    }

    private ByteBuffer readNullableBytes(int end, String field) {
        int length = readVarint(end, field + " length");
        if (length < 0) {
            return null; // -1 by the format; any negative length has always been read as null
        }
        if (length > end - position) {
            throw corrupt(field + " length " + length + " exceeds the " + (end - position)
                    + " bytes left in the record");
        }
        ByteBuffer slice = data.slice(position, length);
        position += length;
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

    private int readVarint(int end, String field) {
        int raw = 0;
        int shift = 0;
        while (true) {
            if (position >= end) {
                throw corrupt(field + ": varint runs past the end of its record");
            }
            byte b = data.get(position++);
            raw |= (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                break;
            }
            shift += 7;
            if (shift > 28) {
                throw corrupt(field + ": varint longer than 5 bytes");
            }
        }
        return (raw >>> 1) ^ -(raw & 1);
    }

    private long readVarlong(int end, String field) {
        long raw = 0;
        int shift = 0;
        while (true) {
            if (position >= end) {
                throw corrupt(field + ": varlong runs past the end of its record");
            }
            byte b = data.get(position++);
            raw |= (long) (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                break;
            }
            shift += 7;
            if (shift > 63) {
                throw corrupt(field + ": varlong longer than 10 bytes");
            }
        }
        return (raw >>> 1) ^ -(raw & 1);
    }

    private CorruptRecordException corrupt(String detail) {
        return new CorruptRecordException("record " + read + " of " + count + " (batch base offset " + baseOffset
                + "): " + detail);
    }
}
