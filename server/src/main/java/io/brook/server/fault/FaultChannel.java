package io.brook.server.fault;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;

/**
 * A segment or index file's channel as {@link StorageFaults} make it behave: writes, truncations
 * and forces ask it first (a crashed broker's disk takes nothing more; a full disk refuses a write
 * that would grow the file; a failing disk fails the force; a slow one delays it), and every write
 * is remembered in the file's {@link UnforcedWrites} until a force covers it. Reads go straight
 * to the real channel.
 */
final class FaultChannel extends FileChannel {
    private final FileChannel real;
    private final StorageFaults faults;
    private final UnforcedWrites unforced;

    FaultChannel(FileChannel real, StorageFaults faults, UnforcedWrites unforced) {
        this.real = real;
        this.faults = faults;
        this.unforced = unforced;
    }

    private void beforeWrite(long at, long length) throws IOException {
        faults.checkAlive();
        if (at + length > real.size()) {
            faults.checkSpace();
        }
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        long at = real.position();
        beforeWrite(at, src.remaining());
        int n = real.write(src);
        unforced.wrote(at, n);
        return n;
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
        beforeWrite(position, src.remaining());
        int n = real.write(src, position);
        unforced.wrote(position, n);
        return n;
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        long at = real.position();
        long total = 0;
        for (int i = offset; i < offset + length; i++) {
            total += srcs[i].remaining();
        }
        beforeWrite(at, total);
        long n = real.write(srcs, offset, length);
        unforced.wrote(at, n);
        return n;
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
        beforeWrite(position, count);
        long n = real.transferFrom(src, position, count);
        unforced.wrote(position, n);
        return n;
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
        faults.checkAlive();
        real.truncate(size);
        return this;
    }

    @Override
    public void force(boolean metaData) throws IOException {
        faults.beforeForce();
        long epoch = unforced.forceStarting();
        real.force(metaData);
        unforced.forced(epoch);
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        return real.read(dst);
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        return real.read(dsts, offset, length);
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
        return real.read(dst, position);
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
        return real.transferTo(position, count, target);
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
