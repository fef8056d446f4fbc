package io.brook.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;

/** A segment file's channel that fails as its {@link DiskFaults} say; otherwise the real one. */
final class FaultyChannel extends FileChannel {
    private final Path file;
    private final FileChannel real;
    private final DiskFaults faults;

    FaultyChannel(Path file, FileChannel real, DiskFaults faults) {
        this.file = file;
        this.real = real;
        this.faults = faults;
    }

    private static void maybeThrow(IOException e) throws IOException {
        if (e != null) {
            throw DiskFaults.copy(e);
        }
    }

    /** Writes {@code src} at {@code position} (the channel's own position if negative), within the free space. */
    private int writeWithin(ByteBuffer src, long position) throws IOException {
        maybeThrow(faults.onWrite);
        long at = position >= 0 ? position : real.position();
        int n = src.remaining();
        long growth = Math.max(0, at + n - Math.max(at, real.size()));
        long granted = faults.reserve(growth);
        int allowed = (int) (n - (growth - granted));
        if (allowed <= 0 && n > 0) {
            throw DiskFaults.noSpace();
        }
        int limit = src.limit();
        src.limit(src.position() + allowed);
        try {
            return position >= 0 ? real.write(src, position) : real.write(src);
        } finally {
            src.limit(limit);
        }
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        return writeWithin(src, -1L);
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
        return writeWithin(src, position);
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        long total = 0;
        for (int i = offset; i < offset + length; i++) {
            int want = srcs[i].remaining();
            int n;
            try {
                n = writeWithin(srcs[i], -1L);
            } catch (IOException e) {
                if (total > 0) {
                    return total; // a short write; the next one fails
                }
                throw e;
            }
            total += n;
            if (n < want) {
                break;
            }
        }
        return total;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        maybeThrow(faults.onRead);
        return real.read(dst);
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        maybeThrow(faults.onRead);
        return real.read(dsts, offset, length);
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
        maybeThrow(faults.onRead);
        return real.read(dst, position);
    }

    @Override
    public long position() throws IOException {
        return real.position();
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
        real.position(newPosition);
        return this;
    }

    @Override
    public long size() throws IOException {
        return real.size();
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
        long before = real.size();
        real.truncate(size);
        if (size < before) {
            faults.release(before - size);
        }
        return this;
    }

    @Override
    public void force(boolean metaData) throws IOException {
        maybeThrow(faults.onForce);
        real.force(metaData);
        faults.forced(file);
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
        maybeThrow(faults.onRead);
        return real.transferTo(position, count, target);
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
        maybeThrow(faults.onWrite);
        return real.transferFrom(src, position, count);
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
        return real.map(mode, position, size);
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
        return real.lock(position, size, shared);
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
        return real.tryLock(position, size, shared);
    }

    @Override
    protected void implCloseChannel() throws IOException {
        real.close();
    }
}
