package io.brook.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Sparse map from a batch's last offset to its position in the segment's {@code .log} file,
 * one entry every {@code index.interval.bytes} of appended batches: Kafka's {@code .index}
 * file, entry for entry, so that Kafka's tools ({@code kafka-dump-log.sh}, its index checks)
 * read Brook's files as their own. Files written by Brook before it followed Kafka here hold a
 * batch's base offset instead; they are read as they are, since everything that uses an entry
 * needs only an offset inside the batch at its position ({@link BatchHeader#holds}).
 *
 * <pre>
 * entry (8 bytes, big-endian):  0                4                8
 *                               +----------------+----------------+
 *                               | relative offset| file position  |
 *                               +----------------+----------------+
 * </pre>
 * Relative offset = last offset of the batch - base offset of the segment. The first batch of a
 * segment is never indexed: position 0 is implied.
 *
 * <p>Memory: entries live in two int arrays; the file is a copy that is written when the segment
 * stops being active (roll, close), and for the active segment (unforced) at the end of an
 * unclean start, where the next one finds where to begin its scan (see {@link LogLoader}); it is
 * trusted at start-up only after a sanity check. Losing it costs a rebuild by scanning the
 * segment, never data.
 *
 * <p>Threading: mutated only by the log's appender (under the log lock); read by any thread.
 * Readers see a prefix of the entries: {@code count} is published after the entry is written.
 */
final class OffsetIndex {
    static final int ENTRY_SIZE = 8;

    private final long baseOffset;
    private final int maxEntries;
    private volatile int[] relOffsets;
    private volatile int[] positions;
    private volatile int count;

    OffsetIndex(long baseOffset, int maxIndexBytes) {
        this.baseOffset = baseOffset;
        this.maxEntries = Math.max(1, maxIndexBytes / ENTRY_SIZE);
        this.relOffsets = new int[16];
        this.positions = new int[16];
    }

    int entries() {
        return count;
    }

    boolean isFull() {
        return count >= maxEntries;
    }

    long lastOffset() {
        int n = count;
        return n == 0 ? baseOffset : baseOffset + relOffsets[n - 1];
    }

    int lastPosition() {
        int n = count;
        return n == 0 ? 0 : positions[n - 1];
    }

    /** Adds an entry; offsets and positions must grow strictly. Returns false when full or out of order. */
    boolean append(long offset, int position) {
        int n = count;
        if (n >= maxEntries) {
            return false;
        }
        long rel = offset - baseOffset;
        if (rel <= 0 || rel > Integer.MAX_VALUE) {
            return false;
        }
        if (n > 0 && (rel <= relOffsets[n - 1] || position <= positions[n - 1])) {
            return false;
        }
        if (n == relOffsets.length) {
            int size = Math.min(maxEntries, n * 2);
            relOffsets = Arrays.copyOf(relOffsets, size);
            positions = Arrays.copyOf(positions, size);
        }
        relOffsets[n] = (int) rel;
        positions[n] = position;
        count = n + 1;
        return true;
    }

    /** Position of the last indexed batch whose entry is at or below {@code offset}, else 0. */
    int lookup(long offset) {
        int slot = slotFor(offset);
        return slot < 0 ? 0 : positions[slot];
    }

    /** Offset of entry {@code slot} (as returned by {@link #slotFor}). */
    long offsetAt(int slot) {
        return baseOffset + relOffsets[slot];
    }

    int positionAt(int slot) {
        return positions[slot];
    }

    /** The last entry whose offset is at or below {@code offset}, or -1. */
    int slotFor(long offset) {
        int n = count;
        int[] rels = relOffsets;
        long rel = offset - baseOffset;
        int lo = 0;
        int hi = n - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (rels[mid] <= rel) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    /** Drops the entries for offsets at or above {@code offset}. */
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
            buf.putInt(relOffsets[i]).putInt(positions[i]);
        }
        buf.flip();
        IndexFiles.write(file, buf);
    }

    /**
     * Loads the file if it is sound for a log file of {@code logSize} bytes: whole entries only,
     * strictly increasing, every position inside the log. Returns a reason when not.
     */
    String load(Path file, long logSize) throws IOException {
        String problem = IndexFiles.shapeProblem(file, ENTRY_SIZE, maxEntries);
        if (problem != null) {
            return problem;
        }
        ByteBuffer buf = ByteBuffer.wrap(Files.readAllBytes(file));
        clear();
        while (buf.remaining() >= ENTRY_SIZE) {
            int rel = buf.getInt();
            int pos = buf.getInt();
            if (pos < 0 || pos >= logSize || !append(baseOffset + rel, pos)) {
                clear();
                return "entry " + count + " (" + rel + " -> " + pos + ") out of order or past the log end";
            }
        }
        return null;
    }
}
