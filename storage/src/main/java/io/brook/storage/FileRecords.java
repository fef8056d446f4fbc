package io.brook.storage;

import io.brook.wire.protocol.Records;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;

/**
 * A slice of a segment file holding whole batches (the last one may be cut short by a byte
 * limit, as Kafka's fetch does; clients drop a partial trailing batch). No payload is read into
 * the heap: the server sends the slice with {@code sendfile} ({@link #transferTo} or Netty's
 * {@code FileRegion} over {@link #channel()}, {@link #position()}, {@link #sizeInBytes()}).
 *
 * <p>Ownership: the channel belongs to the log. Never close it (note that Netty's
 * {@code DefaultFileRegion} closes its channel when released — wrap it so that it does not).
 * A segment that retention or compaction removes stays open for {@code file.delete.delay.ms},
 * so a slice handed out before stays readable for that long.
 */
public final class FileRecords implements Records {
    private final FileChannel channel;
    private final long position;
    private final int size;
    private final long baseOffset;

    FileRecords(FileChannel channel, long position, int size, long baseOffset) {
        this.channel = channel;
        this.position = position;
        this.size = size;
        this.baseOffset = baseOffset;
    }

    public FileChannel channel() {
        return channel;
    }

    /** File position of the first byte. */
    public long position() {
        return position;
    }

    @Override
    public int sizeInBytes() {
        return size;
    }

    /** Base offset of the first batch in the slice. */
    public long firstBatchBaseOffset() {
        return baseOffset;
    }

    /**
     * Sends up to {@code count} bytes of the slice starting {@code offset} bytes into it; returns
     * how many were sent (may be fewer, as with {@link FileChannel#transferTo}).
     */
    public long transferTo(WritableByteChannel target, long offset, long count) throws IOException {
        if (offset < 0 || offset > size) {
            throw new IllegalArgumentException("offset " + offset + " outside slice of " + size + " bytes");
        }
        long n = Math.min(count, size - offset);
        return channel.transferTo(position + offset, n, target);
    }

    /** Copies the slice into {@code dst} (for callers that cannot use sendfile, and for tests). */
    public void readInto(ByteBuffer dst) throws IOException {
        if (dst.remaining() < size) {
            throw new IllegalArgumentException("need " + size + " bytes, buffer has " + dst.remaining());
        }
        ByteBuffer view = dst.duplicate();
        view.limit(view.position() + size);
        long p = position;
        while (view.hasRemaining()) {
            int n = channel.read(view, p);
            if (n < 0) {
                throw new IOException("file ended " + view.remaining() + " bytes before the slice end");
            }
            p += n;
        }
        dst.position(dst.position() + size);
    }

    /** A heap copy of the slice (tests and tools only). */
    public ByteBuffer readAll() throws IOException {
        ByteBuffer b = ByteBuffer.allocate(size);
        readInto(b);
        return b.flip();
    }

    @Override
    public String toString() {
        return "FileRecords(position=" + position + ", size=" + size + ", baseOffset=" + baseOffset + ")";
    }
}
