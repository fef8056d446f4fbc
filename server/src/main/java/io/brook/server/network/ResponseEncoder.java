package io.brook.server.network;

import io.brook.storage.FileRecords;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.BufferRecords;
import io.brook.wire.protocol.ProtocolWriter;
import io.brook.wire.protocol.Records;
import io.brook.wire.protocol.ResponseHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Encodes one response frame (size prefix, header, body) into the messages a Netty channel
 * writes: pooled direct buffers for the protocol fields, and for {@code records} fields either a
 * wrapped view of the in-memory bytes or a file region that the transport sends with
 * {@code sendfile} — payload bytes are never copied through the Java heap.
 *
 * <p>File slices below {@value #COPY_FILE_RECORDS_BELOW} bytes (a tailing consumer's fetch) are
 * instead read with one {@code pread} straight into the direct buffer around them: the response
 * then leaves in a single {@code write}, where a region costs three system calls (the fields
 * before it, the {@code sendfile}, the fields after it). Larger slices keep {@code sendfile}, and
 * so do small ones once a response copied {@value #COPY_BUDGET} bytes: a fetch of thousands of
 * small slices must not turn into a buffer of their total size (nor into that many reads on the
 * event loop).
 *
 * <p>Memory: the first buffer is sized for the whole frame (up to 64 KiB) since most answers
 * are written into it entirely; when records leave as a region, the buffer before them is cut
 * back to what it holds, so a queued fetch answer holds its ~100 bytes of fields rather than
 * 64 KiB.
 *
 * <p>In-memory records of 1 KiB and more are wrapped, not copied, so their buffer must stay
 * valid until the write completes; responses never carry request memory (which is released when
 * the request completes), only file slices or buffers of their own.
 *
 * <p>Not thread-safe: one encoder per call of {@link #encode}, on the connection's event loop.
 */
final class ResponseEncoder implements ProtocolWriter {

    /** Records smaller than this are copied into the surrounding buffer: a separate part costs more. */
    private static final int INLINE_RECORDS_BELOW = 1024;
    /**
     * File slices smaller than this are read into the response buffer. Two system calls saved
     * are worth far more than copying this much from the page cache (a few microseconds at most).
     */
    static final int COPY_FILE_RECORDS_BELOW = 16 * 1024;
    /** Most bytes of file slices one response copies; further slices leave as regions. */
    static final int COPY_BUDGET = 64 * 1024;
    /** A buffer that holds less than this fraction of its capacity is cut back before it is queued. */
    private static final int SHRINK_BELOW_FRACTION = 4;

    private final ByteBufAllocator alloc;
    private final List<Object> parts = new ArrayList<>(4);
    private ByteBuf current;
    private int copied;

    private ResponseEncoder(ByteBufAllocator alloc, int firstBufferSize) {
        this.alloc = alloc;
        this.current = alloc.ioBuffer(firstBufferSize);
    }

    /**
     * The frame as a list of {@link ByteBuf}s and {@link io.netty.channel.FileRegion}s to write
     * in order; the caller owns them. Throws when the message cannot be written at {@code version}.
     */
    static List<Object> encode(ByteBufAllocator alloc, int correlationId, short headerVersion, ApiMessage body,
            short version) {
        int bodySize = body.size(version);
        int frameSize = ResponseHeader.size(headerVersion) + bodySize;
        ResponseEncoder enc = new ResponseEncoder(alloc, Math.min(4 + frameSize, 64 * 1024));
        try {
            enc.current.writeInt(frameSize);
            ResponseHeader.write(enc, correlationId, headerVersion);
            body.write(enc, version);
            enc.finishPart();
            long written = 0;
            for (Object part : enc.parts) {
                written += part instanceof ByteBuf b ? b.readableBytes() : ((io.netty.channel.FileRegion) part).count();
            }
            if (written != 4L + frameSize) {
                throw new IllegalStateException(body.getClass().getSimpleName() + " v" + version + ": size() said "
                        + frameSize + " bytes but write() produced " + (written - 4));
            }
            return enc.parts;
        } catch (RuntimeException e) {
            enc.releaseAll();
            throw e;
        }
    }

    private void finishPart() {
        if (current.isReadable()) {
            parts.add(current);
        } else {
            current.release();
        }
        current = null;
    }

    private void releaseAll() {
        if (current != null) {
            current.release();
            current = null;
        }
        for (Object p : parts) {
            ReferenceCountUtil.release(p);
        }
        parts.clear();
    }

    @Override
    public void writeByte(byte value) {
        current.writeByte(value);
    }

    @Override
    public void writeShort(short value) {
        current.writeShort(value);
    }

    @Override
    public void writeInt(int value) {
        current.writeInt(value);
    }

    @Override
    public void writeLong(long value) {
        current.writeLong(value);
    }

    @Override
    public void writeDouble(double value) {
        current.writeDouble(value);
    }

    @Override
    public void writeBytes(ByteBuffer src) {
        current.writeBytes(src.duplicate());
    }

    @Override
    public void writeByteArray(byte[] src) {
        current.writeBytes(src);
    }

    @Override
    public void writeUtf8(String value, int utf8Length) {
        int written = current.writeCharSequence(value, java.nio.charset.StandardCharsets.UTF_8);
        if (written != utf8Length) {
            throw new IllegalArgumentException("UTF-8 length " + written + " != expected " + utf8Length);
        }
    }

    @Override
    public void writeRecords(Records records) {
        int size = records.sizeInBytes();
        if (size == 0) {
            return;
        }
        if (records instanceof BufferRecords buffered) {
            if (size < INLINE_RECORDS_BELOW) {
                current.writeBytes(buffered.buffer());
            } else {
                nextPart(Unpooled.wrappedBuffer(buffered.buffer()));
            }
            return;
        }
        if (records instanceof FileRecords file
                && (size < COPY_FILE_RECORDS_BELOW && copied + size <= COPY_BUDGET || !FileRegions.sendable(file))) {
            copyFromFile(file, size);
            copied += size;
            return;
        }
        Object region = FileRegions.regionOf(records);
        if (region == null) {
            throw new IllegalArgumentException("cannot send records of type " + records.getClass().getName());
        }
        nextPart(region);
    }

    /** Reads the slice into {@link #current} (the caller's encode fails if the file cannot be read). */
    private void copyFromFile(FileRecords file, int size) {
        current.ensureWritable(size);
        int at = current.writerIndex();
        try {
            file.readInto(current.nioBuffer(at, size));
        } catch (IOException e) {
            throw new UncheckedIOException("could not read " + file, e);
        }
        current.writerIndex(at + size);
    }

    private void nextPart(Object part) {
        if (current.isReadable()) {
            int held = current.readableBytes();
            if (held < current.capacity() / SHRINK_BELOW_FRACTION) {
                current.capacity(current.writerIndex()); // a smaller buffer, the large one back to the pool
            }
            parts.add(current);
        } else {
            current.release();
        }
        parts.add(part);
        current = alloc.ioBuffer(256);
    }
}
