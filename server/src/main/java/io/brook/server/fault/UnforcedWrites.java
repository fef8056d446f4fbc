package io.brook.server.fault;

import java.util.ArrayList;
import java.util.List;

/**
 * The writes to one file that no completed force has covered yet: what a power cut would take.
 * Each write is recorded with the number of the force epoch it happened in; a force that starts
 * closes the epoch, and when it succeeds every write of the epochs it closed is durable and
 * forgotten. A write that ran concurrently with a force counts as not covered by it (the safe
 * side: a crash may take it).
 *
 * <p>Appends to segment files are sequential, so what a crash loses is the file from the lowest
 * unforced write on: {@link #lostFrom()}.
 *
 * <p>Threading: any thread; every method holds the instance's monitor (never during I/O).
 */
final class UnforcedWrites {
    /** {start, end, epoch} of each unforced write. */
    private final List<long[]> writes = new ArrayList<>();
    private long epoch;

    synchronized void wrote(long position, long length) {
        if (length > 0) {
            writes.add(new long[] {position, position + length, epoch});
        }
    }

    /** A force starts; returns the epoch it closes. */
    synchronized long forceStarting() {
        return epoch++;
    }

    /** The force that closed {@code closedEpoch} succeeded. */
    synchronized void forced(long closedEpoch) {
        writes.removeIf(w -> w[2] <= closedEpoch);
    }

    /** The lowest position a crash loses, or -1 when everything written was forced. */
    synchronized long lostFrom() {
        long from = Long.MAX_VALUE;
        for (long[] w : writes) {
            from = Math.min(from, w[0]);
        }
        return from == Long.MAX_VALUE ? -1 : from;
    }

    synchronized void clear() {
        writes.clear();
    }
}
