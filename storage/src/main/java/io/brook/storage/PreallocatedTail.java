package io.brook.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The end of a segment file past its data: the zeros the {@link Preallocator} writes ahead of the
 * active segment's data, so that appends overwrite blocks the file system already holds as
 * written and an fdatasync then has no file-system metadata to commit.
 *
 * <p>{@code zeroedEnd} is where the zeros end: below it every byte is data or zeros, so an
 * append that ends at or below it writes without coordination; an append past it, and every
 * change of the file's length (zero extension, truncation, trimming), holds {@code lock}, so
 * zeros are never written over data. The zeros are cut off when the segment stops being active
 * and at a clean close; after a crash, {@link LogSegment#recover} reports a zero tail as such and
 * the loader drops it.
 *
 * <p>Threading: appends, truncation and trimming run on the log's appending side (under its
 * append lock); {@link #extendZeros} runs on the preallocator's thread. Nothing holds
 * {@code lock} while waiting for the disk: it covers page-cache writes and truncations, not
 * forces. Lock order: the segment's monitor before {@code lock}.
 */
final class PreallocatedTail {
    private final FileChannel channel;
    /** Guards the file's length past the data: zero extension, appends past {@link #zeroedEnd}, truncation, trimming. */
    private final Object lock = new Object();
    /** Bytes below this are data or zeros written ahead; equals the file length while preallocated. */
    private volatile int zeroedEnd;
    /** No more zeros are written ahead (the segment was rolled, trimmed, deleted or closed). Under lock. */
    private boolean stopped;
    /** Set while the segment waits in the preallocator's queue or is being extended. */
    final AtomicBoolean queued = new AtomicBoolean();

    PreallocatedTail(FileChannel channel) {
        this.channel = channel;
    }

    /** Where the zeros written ahead of the data end (the file's length while preallocated). */
    int zeroedEnd() {
        return zeroedEnd;
    }

    /**
     * Appends {@code bytes} bytes from {@code srcs} at {@code position}, the end of the data
     * (where the channel's position is kept by the single writer).
     */
    void append(ByteBuffer[] srcs, int bytes, int position) throws IOException {
        if (position + bytes <= zeroedEnd) {
            write(srcs, bytes);
        } else if (!queued.get()) {
            // Past the zeros, and no extension queued or running: only the single appender
            // queues one, so none can start before this write is done. The common case of a log
            // that takes no zeros; no lock.
            write(srcs, bytes);
            zeroedEnd = position + bytes;
        } else {
            // past the zeros: wait for an extension in progress so that it cannot land on these bytes
            synchronized (lock) {
                write(srcs, bytes);
                zeroedEnd = Math.max(zeroedEnd, position + bytes);
            }
        }
    }

    private void write(ByteBuffer[] srcs, int bytes) throws IOException {
        long written = 0;
        while (written < bytes) {
            written += channel.write(srcs);
        }
    }

    /**
     * Writes zeros from the end of the zeroed region up to {@code targetEnd} and forces them, so
     * that the blocks are allocated and written before appends reach them and the fdatasync
     * answering those appends has only data to write. Runs on the preallocator's thread; appends
     * that stay below the region's old end go on meanwhile.
     *
     * @param zeros     a zero-filled buffer (written as often as needed)
     * @param targetEnd where the zeros should end; nothing happens if they already reach it
     * @return the bytes of zeros written
     */
    long extendZeros(ByteBuffer zeros, long targetEnd) throws IOException {
        long start;
        long end;
        synchronized (lock) {
            if (stopped) {
                return 0;
            }
            start = zeroedEnd;
            end = Math.min(Integer.MAX_VALUE, targetEnd);
            if (end <= start) {
                return 0;
            }
            try {
                for (long p = start; p < end; ) {
                    zeros.clear().limit((int) Math.min(zeros.capacity(), end - p));
                    p += channel.write(zeros, p);
                }
            } catch (IOException | RuntimeException | Error e) {
                // A full disk, typically: give back the zeros written so far (appends write
                // below start or take this lock, so nothing past start is data).
                try {
                    channel.truncate(start);
                } catch (IOException | RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw e;
            }
            zeroedEnd = (int) end;
        }
        // Outside the lock: an append past the new end must not wait for this disk write. A
        // segment trimmed or closed meanwhile needs no force.
        try {
            channel.force(false);
        } catch (ClosedChannelException e) {
            // closed meanwhile (deleted, or the broker stops): nothing left to force
        }
        return end - start;
    }

    /**
     * Stops preallocation and cuts the zeros past {@code dataEnd} off the file; returns whether
     * the file's length changed (it must then be forced).
     */
    boolean trim(int dataEnd) throws IOException {
        synchronized (lock) {
            stopped = true;
            if (channel.isOpen() && channel.size() > dataEnd) {
                channel.truncate(dataEnd);
                zeroedEnd = dataEnd;
                return true;
            }
            return false;
        }
    }

    /** Writes no more zeros ahead (before deletion or close); the file keeps its length. */
    void stop() {
        synchronized (lock) {
            stopped = true;
        }
    }

    /** Cuts the file at {@code position} (truncation to a batch boundary). */
    void cutAt(int position) throws IOException {
        synchronized (lock) {
            channel.truncate(position);
            zeroedEnd = position;
        }
    }

    /**
     * Makes the file end at {@code dataEnd} (after load or recovery, before the first append);
     * returns whether its length changed.
     */
    boolean resetTo(int dataEnd) throws IOException {
        synchronized (lock) {
            boolean cut = false;
            if (channel.size() != dataEnd) {
                channel.truncate(dataEnd);
                cut = true;
            }
            zeroedEnd = dataEnd;
            return cut;
        }
    }

    /**
     * Whether every byte of {@code channel} from {@code from} to {@code to} is zero: zeros written
     * ahead that a crash left behind the data, which recovery cuts off without calling it damage.
     */
    static boolean isZero(FileChannel channel, long from, long to) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate((int) Math.min(64 * 1024, Math.max(1, to - from)));
        long p = from;
        while (p < to) {
            buf.clear().limit((int) Math.min(buf.capacity(), to - p));
            int n = channel.read(buf, p);
            if (n < 0) {
                return false;
            }
            for (int i = 0; i < n; i++) {
                if (buf.get(i) != 0) {
                    return false;
                }
            }
            p += n;
        }
        return true;
    }
}
