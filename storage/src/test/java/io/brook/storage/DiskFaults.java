package io.brook.storage;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A disk that fails on demand, for the segment files below one directory: installed through
 * {@link SegmentChannels}, it hands out {@link FaultyChannel}s that consult it on every write,
 * force, read and truncation. Models what Linux reports: a full file system fails the write that
 * would grow a file past the free space (after writing what fits, as a short write), frees space
 * when a file shrinks, and gives ENOSPC or EIO from fsync; an unreadable block gives EIO. It also
 * remembers the name of each file forced successfully, in order ({@link #forced}).
 */
final class DiskFaults implements AutoCloseable {
    static final String ENOSPC = "No space left on device";
    static final String EIO = "Input/output error";

    private final Path dir;
    /** Bytes files may still grow by. */
    private final AtomicLong free = new AtomicLong(Long.MAX_VALUE);
    private final List<String> forced = new CopyOnWriteArrayList<>();
    volatile IOException onWrite;
    volatile IOException onForce;
    volatile IOException onRead;
    volatile IOException onOpen;

    private DiskFaults(Path dir) {
        this.dir = dir;
    }

    /** Segment files opened below {@code dir} from now on go through the returned faults. */
    static DiskFaults install(Path dir) {
        DiskFaults f = new DiskFaults(dir);
        SegmentChannels.intercept(dir, (file, ch) -> {
            IOException e = f.onOpen;
            if (e != null) {
                throw copy(e);
            }
            return new FaultyChannel(file, ch, f);
        });
        return f;
    }

    static IOException noSpace() {
        return new IOException(ENOSPC);
    }

    static IOException eio() {
        return new IOException(EIO);
    }

    /** Files may grow by {@code bytes} more in total; then writes are short, then fail with ENOSPC. */
    void freeSpace(long bytes) {
        free.set(bytes);
    }

    /** Space is plentiful again (someone deleted files). */
    void unlimitedSpace() {
        free.set(Long.MAX_VALUE);
    }

    /** How many of {@code wanted} new bytes may be written now (0: none, the write fails). */
    long reserve(long wanted) {
        while (true) {
            long left = free.get();
            long granted = Math.min(left, wanted);
            if (left == Long.MAX_VALUE || free.compareAndSet(left, left - granted)) {
                return granted;
            }
        }
    }

    /** A file shrank by {@code bytes}. */
    void release(long bytes) {
        free.getAndUpdate(left -> left == Long.MAX_VALUE ? left : left + bytes);
    }

    /** Clears every injected error (space stays as it is). */
    void healthy() {
        onWrite = null;
        onForce = null;
        onRead = null;
        onOpen = null;
    }

    /** The names of the files forced successfully so far, in order (cleared by {@link #forgetForces}). */
    List<String> forced() {
        return List.copyOf(forced);
    }

    void forgetForces() {
        forced.clear();
    }

    void forced(Path file) {
        forced.add(file.getFileName().toString());
    }

    static IOException copy(IOException e) {
        return new IOException(e.getMessage());
    }

    @Override
    public void close() {
        SegmentChannels.stopIntercepting(dir);
    }
}
