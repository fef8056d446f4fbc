package io.brook.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The aborted transactions of a partition, ordered by marker offset, kept in memory and in the
 * file {@code aborted-transactions} of the partition directory.
 *
 * <pre>
 * file:  entry*   entry (28 bytes): producerId int64 | firstOffset int64 | lastOffset int64 |
 *                                   crc int32 (CRC-32C of the 24 bytes before it)
 * </pre>
 * An entry is appended (without fsync) when an ABORT marker is appended; the file is rewritten
 * when truncation or retention drops entries. At load, entries are trusted only below the offset
 * from which the log replays its batches (the producer-state snapshot); from there on they are
 * rebuilt from the markers in the log, so a torn or stale tail costs nothing.
 *
 * <p>Threading: mutated under the log's lock; {@link #collect} reads a copy-on-write snapshot.
 */
final class TransactionIndex {
    static final String FILE = "aborted-transactions";
    private static final int ENTRY_SIZE = 28;

    private final Path file;
    private volatile List<AbortedTransaction> entries = List.of();

    TransactionIndex(Path dir) {
        this.file = dir.resolve(FILE);
    }

    /** Loads the sound entries whose marker lies below {@code trustedBelow}. */
    void load(long trustedBelow) throws IOException {
        List<AbortedTransaction> out = new ArrayList<>();
        if (Files.exists(file)) {
            ByteBuffer buf = ByteBuffer.wrap(Files.readAllBytes(file));
            CRC32C crc = new CRC32C();
            while (buf.remaining() >= ENTRY_SIZE) {
                int start = buf.position();
                long pid = buf.getLong();
                long first = buf.getLong();
                long last = buf.getLong();
                int stored = buf.getInt();
                crc.reset();
                crc.update(buf.array(), start, 24);
                if ((int) crc.getValue() != stored) {
                    break;
                }
                if (last < trustedBelow) {
                    out.add(new AbortedTransaction(pid, first, last));
                }
            }
        }
        entries = List.copyOf(out);
        rewrite();
    }

    void add(AbortedTransaction t) throws IOException {
        List<AbortedTransaction> next = new ArrayList<>(entries);
        next.add(t);
        entries = List.copyOf(next);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND)) {
            ByteBuffer b = encode(t);
            while (b.hasRemaining()) {
                ch.write(b);
            }
        }
    }

    /** Drops the entries whose marker is at or above {@code end} (truncation). */
    void truncateTo(long end) throws IOException {
        List<AbortedTransaction> next = new ArrayList<>();
        for (AbortedTransaction t : entries) {
            if (t.lastOffset() < end) {
                next.add(t);
            }
        }
        if (next.size() != entries.size()) {
            entries = List.copyOf(next);
            rewrite();
        }
    }

    /** Drops the entries wholly below the log start offset (retention, DeleteRecords). */
    void dropBefore(long logStartOffset) throws IOException {
        List<AbortedTransaction> next = new ArrayList<>();
        for (AbortedTransaction t : entries) {
            if (t.lastOffset() >= logStartOffset) {
                next.add(t);
            }
        }
        if (next.size() != entries.size()) {
            entries = List.copyOf(next);
            rewrite();
        }
    }

    /** The aborted transactions overlapping [{@code from}, {@code to}). */
    List<AbortedTransaction> collect(long from, long to) {
        List<AbortedTransaction> out = null;
        for (AbortedTransaction t : entries) {
            if (t.lastOffset() >= from && t.firstOffset() < to) {
                if (out == null) {
                    out = new ArrayList<>();
                }
                out.add(t);
            }
        }
        return out == null ? List.of() : out;
    }

    void force() throws IOException {
        if (Files.exists(file)) {
            LogSegment.force(file);
        }
    }

    private void rewrite() throws IOException {
        List<AbortedTransaction> snapshot = entries;
        if (snapshot.isEmpty()) {
            Files.deleteIfExists(file);
            return;
        }
        Path tmp = file.resolveSibling(FILE + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            for (AbortedTransaction t : snapshot) {
                ByteBuffer b = encode(t);
                while (b.hasRemaining()) {
                    ch.write(b);
                }
            }
        }
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static ByteBuffer encode(AbortedTransaction t) {
        ByteBuffer b = ByteBuffer.allocate(ENTRY_SIZE);
        b.putLong(t.producerId()).putLong(t.firstOffset()).putLong(t.lastOffset());
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, 24);
        b.putInt((int) crc.getValue());
        return b.flip();
    }
}
