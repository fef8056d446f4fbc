package io.brook.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Sparse map from the largest timestamp seen so far in a segment to the last offset of the batch
 * where it was reached: Kafka's {@code .timeindex} file, entry for entry (its tools check that
 * the batch ending at an entry's offset holds the entry's timestamp). Timestamps grow strictly
 * from entry to entry, and every record up to an entry's offset has a timestamp at most the
 * entry's, so the first record with a timestamp at or above T lies after the last entry whose
 * timestamp is below T. (Files Brook wrote before it followed Kafka hold the base offset of the
 * batch being indexed, which bounds the same search.)
 *
 * <pre>
 * entry (12 bytes, big-endian):  0                                8                12
 *                                +--------------------------------+----------------+
 *                                | max timestamp so far           | relative offset|
 *                                +--------------------------------+----------------+
 * </pre>
 * An entry is added together with an offset-index entry (when the maximum grew) and once more
 * when the segment stops being active, so the last entry of a closed segment holds its largest
 * timestamp. Memory, file and threading rules are those of {@link OffsetIndex}.
 */
final class TimeIndex {
    static final int ENTRY_SIZE = 12;

    private final long baseOffset;
    private final int maxEntries;
    private volatile long[] timestamps;
    private volatile int[] relOffsets;
    private volatile int count;

    TimeIndex(long baseOffset, int maxIndexBytes) {
        this.baseOffset = baseOffset;
        this.maxEntries = Math.max(1, maxIndexBytes / ENTRY_SIZE);
        this.timestamps = new long[16];
        this.relOffsets = new int[16];
    }

    int entries() {
        return count;
    }

    boolean isFull() {
        return count >= maxEntries;
    }

    long lastTimestamp() {
        int n = count;
        return n == 0 ? -1L : timestamps[n - 1];
    }

    long lastOffset() {
        int n = count;
        return n == 0 ? baseOffset : baseOffset + relOffsets[n - 1];
    }

    /** Adds an entry if {@code timestamp} is larger than the last one. */
    boolean maybeAppend(long timestamp, long offset) {
        int n = count;
        if (n >= maxEntries) {
            return false;
        }
        long rel = offset - baseOffset;
        if (rel < 0 || rel > Integer.MAX_VALUE) {
            return false;
        }
        if (n > 0 && (timestamp <= timestamps[n - 1] || rel < relOffsets[n - 1])) {
            return false;
        }
        if (n == timestamps.length) {
            int size = Math.min(maxEntries, n * 2);
            timestamps = Arrays.copyOf(timestamps, size);
            relOffsets = Arrays.copyOf(relOffsets, size);
        }
        timestamps[n] = timestamp;
        relOffsets[n] = (int) rel;
        count = n + 1;
        return true;
    }

    /**
     * Offset from which to scan for the first record with timestamp at or above {@code timestamp}:
     * the offset of the last entry with a smaller timestamp, or the segment base.
     */
    long lookup(long timestamp) {
        int n = count;
        long[] ts = timestamps;
        int[] rels = relOffsets;
        int lo = 0;
        int hi = n - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (ts[mid] < timestamp) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found < 0 ? baseOffset : baseOffset + rels[found];
    }

    void truncateTo(long offset) {
        long rel = offset - baseOffset;
        int n = count;
        while (n > 0 && relOffsets[n - 1] >= rel) {
            n--;
        }
        count = n;
    }

    void clear() {
        count = 0;
    }

    void writeTo(Path file) throws IOException {
        int n = count;
        ByteBuffer buf = ByteBuffer.allocate(n * ENTRY_SIZE);
        for (int i = 0; i < n; i++) {
            buf.putLong(timestamps[i]).putInt(relOffsets[i]);
        }
        buf.flip();
        IndexFiles.write(file, buf);
    }

    /** Loads the file if sound for a segment whose offsets end before {@code nextOffset}; else a reason. */
    String load(Path file, long nextOffset) throws IOException {
        String problem = IndexFiles.shapeProblem(file, ENTRY_SIZE, maxEntries);
        if (problem != null) {
            return problem;
        }
        ByteBuffer buf = ByteBuffer.wrap(Files.readAllBytes(file));
        clear();
        while (buf.remaining() >= ENTRY_SIZE) {
            long ts = buf.getLong();
            int rel = buf.getInt();
            if (baseOffset + rel >= nextOffset || !maybeAppend(ts, baseOffset + rel)) {
                clear();
                return "entry " + count + " (" + ts + " -> " + rel + ") out of order or past the log end";
            }
        }
        return null;
    }
}
