package io.brook.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * File handling shared by a segment's index files. Forcing serves all of them, the
 * {@link TransactionIndex} included. Writing and loading serve the two sparse indexes
 * ({@link OffsetIndex}, {@link TimeIndex}), which keep their entries in memory and write them as
 * fixed-size big-endian entries, one after the other, on roll and close (and the active segment's
 * at the end of an unclean start, see {@link LogLoader}). Loading never trusts the file: its size
 * must be whole entries and within the index's capacity before anything is read.
 */
final class IndexFiles {
    private IndexFiles() {
    }

    /** Replaces {@code file}'s content with {@code entries} (position to limit). */
    static void write(Path file, ByteBuffer entries) throws IOException {
        try (FileChannel ch = SegmentChannels.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            while (entries.hasRemaining()) {
                ch.write(entries);
            }
        }
    }

    /** Forces {@code file} (data and length). */
    static void force(Path file) throws IOException {
        try (FileChannel ch = SegmentChannels.open(file, StandardOpenOption.WRITE)) {
            ch.force(true);
        }
    }

    /** Forces each of {@code files} in turn; false, and no more forced, at the first one missing (deleted meanwhile). */
    static boolean forceExisting(Path... files) throws IOException {
        for (Path f : files) {
            try {
                force(f);
            } catch (NoSuchFileException e) {
                return false;
            }
        }
        return true;
    }

    /**
     * Why {@code file} cannot hold an index of {@code entrySize}-byte entries with room for
     * {@code maxEntries}: missing, not whole entries, or too many; null when its shape is sound.
     */
    static String shapeProblem(Path file, int entrySize, int maxEntries) throws IOException {
        if (!Files.exists(file)) {
            return "missing";
        }
        long size = Files.size(file);
        if (size % entrySize != 0) {
            return "size " + size + " is not a multiple of " + entrySize;
        }
        if (size / entrySize > maxEntries) {
            return "more than " + maxEntries + " entries";
        }
        return null;
    }
}
