package io.brook.storage;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Where the most recently appended batches of a segment start, so that a consumer reading from
 * the last high watermark it saw (a tailing read) finds its batch with one header read instead
 * of a scan from the last index entry (up to {@code index.interval.bytes} of headers, one read
 * each).
 *
 * <p>Entries: (base offset - segment base) << 32 | position; 0 = empty. The segment's first
 * batch (relative offset 0) is never recorded: it is found at once without help.
 *
 * <p>Threading: written by the segment's single appender (release stores) and cleared by
 * truncation, both under the log's append lock; read by any thread without a lock. An entry is
 * only a hint: a reader trusts it only after reading the header it names.
 */
final class RecentBatches {
    private static final int SIZE = 32;

    private final AtomicLongArray starts = new AtomicLongArray(SIZE);
    private int next;

    /** Records that the batch with relative base offset {@code relativeBase} starts at {@code position}. */
    void add(long relativeBase, int position) {
        starts.lazySet(next++ & (SIZE - 1), (relativeBase << 32) | position);
    }

    /** Where the recorded batch with relative base offset {@code relativeBase} starts, or -1. */
    int find(long relativeBase) {
        if (relativeBase <= 0 || relativeBase > Integer.MAX_VALUE) {
            return -1;
        }
        for (int i = 0; i < SIZE; i++) {
            long e = starts.get(i);
            if (e >>> 32 == relativeBase) {
                return (int) e;
            }
        }
        return -1;
    }

    /** Forgets every entry (truncation: the positions may now name other bytes). */
    void clear() {
        for (int i = 0; i < SIZE; i++) {
            starts.set(i, 0L);
        }
    }
}
