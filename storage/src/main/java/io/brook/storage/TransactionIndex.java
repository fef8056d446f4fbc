package io.brook.storage;

import io.brook.storage.file.DurableFiles;
import io.brook.wire.record.CorruptRecordException;
import io.brook.wire.record.Record;
import io.brook.wire.record.RecordBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.zip.CRC32C;

/**
 * The aborted transactions of a partition, ordered by marker offset, kept in memory and in the
 * file {@code aborted-transactions} of the partition directory.
 *
 * <pre>
 * file:  entry*   entry (28 bytes): producerId int64 | firstOffset int64 | lastOffset int64 |
 *                                   crc int32 (CRC-32C of the 24 bytes before it)
 * </pre>
 * An entry is appended (without fsync) when an ABORT marker is appended; the file is replaced
 * (durably, by {@link #persist}) when retention, truncation, compaction or loading dropped entries. At load,
 * entries are trusted only below the offset from which the log replays its batches (the
 * producer-state snapshot); from there on they are rebuilt from the markers in the log, so a
 * torn or stale tail costs nothing.
 *
 * <p>Threading: the entries change under the log's append lock; {@link #collect} reads a
 * copy-on-write snapshot without a lock. {@link #persist} runs outside the append lock (callers
 * serialise it: {@link LogStateFiles}); while a replacement of the file is due or being written,
 * appended entries are not written to the file but left to the next replacement, so that a
 * replacement never loses an entry appended meanwhile.
 */
final class TransactionIndex {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionIndex.class);
    static final String FILE = "aborted-transactions";
    private static final int ENTRY_SIZE = 28;

    private final Path file;
    private volatile List<AbortedTransaction> entries = List.of();
    /** Bumped by every change of the entries. Guarded by this object's monitor (never held during I/O). */
    private long version;
    /** The version the file holds. Under the monitor. */
    private long fileVersion;
    /** A replacement of the file is being written. Under the monitor. */
    private boolean replacing;

    TransactionIndex(Path dir) {
        this.file = dir.resolve(FILE);
    }

    /**
     * Loads the sound entries whose marker lies below {@code trustedBelow}; the file is replaced
     * by {@link #persist} if that dropped any.
     */
    void load(long trustedBelow) throws IOException {
        List<AbortedTransaction> out = new ArrayList<>();
        boolean dropped = false;
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
            dropped = out.size() * ENTRY_SIZE != buf.limit();
        }
        replace(out, dropped);
    }

    /**
     * If the control batch at {@code p} (whole in {@code b}) is an ABORT marker and
     * {@code producer} has an open transaction, records that transaction. Before producer state
     * sees the marker.
     */
    void addIfAbort(ProducerStateEntry producer, ByteBuffer b, int p, long markerOffset) throws IOException {
        if (producer == null || producer.currentTxnFirstOffset < 0) {
            return;
        }
        try {
            Iterator<Record> it = new RecordBatch().wrap(b, p).records();
            if (it.hasNext()) {
                ByteBuffer key = it.next().key();
                // Control record key: version int16, type int16 (0 = ABORT, 1 = COMMIT).
                if (key != null && key.remaining() >= 4 && key.getShort(key.position() + 2) == 0) {
                    add(new AbortedTransaction(producer.producerId, producer.currentTxnFirstOffset, markerOffset));
                }
            }
        } catch (CorruptRecordException ex) {
            LOG.warn("{}: unreadable control batch at offset {}", file.getParent(), markerOffset);
        }
    }

    private void add(AbortedTransaction t) throws IOException {
        boolean appendToFile;
        synchronized (this) {
            List<AbortedTransaction> next = new ArrayList<>(entries);
            next.add(t);
            entries = List.copyOf(next);
            appendToFile = !replacing && fileVersion == version;
            version++;
            if (appendToFile) {
                fileVersion = version;
            }
        }
        if (!appendToFile) {
            return; // the replacement due writes it
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND)) {
            ByteBuffer b = encode(t);
            while (b.hasRemaining()) {
                ch.write(b);
            }
        } catch (IOException e) {
            synchronized (this) {
                fileVersion = -1L; // the next persist replaces the file
            }
            throw e;
        }
    }

    /**
     * Drops the entries whose marker is at or above {@code end} (truncation: they are rebuilt
     * from the markers left in the log).
     */
    void truncateTo(long end) {
        keepOnly(t -> t.lastOffset() < end);
    }

    /** Drops the entries wholly below the log start offset (retention, DeleteRecords). */
    void dropBefore(long logStartOffset) {
        keepOnly(t -> t.lastOffset() >= logStartOffset);
    }

    /**
     * Drops the entries of the aborted transactions whose markers compaction removes (their
     * base offsets, {@code markerOffsets}).
     */
    void dropMarkers(Set<Long> markerOffsets) {
        keepOnly(t -> !markerOffsets.contains(t.lastOffset()));
    }

    private void keepOnly(Predicate<AbortedTransaction> keep) {
        List<AbortedTransaction> next = new ArrayList<>();
        for (AbortedTransaction t : entries) {
            if (keep.test(t)) {
                next.add(t);
            }
        }
        if (next.size() != entries.size()) {
            replace(next, true);
        }
    }

    private synchronized void replace(List<AbortedTransaction> next, boolean fileStale) {
        entries = List.copyOf(next);
        version++;
        if (!fileStale && !replacing && fileVersion == version - 1) {
            fileVersion = version;
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

    /** Forces the entries appended to the file since it was last replaced (clean close). */
    void force() throws IOException {
        if (Files.exists(file)) {
            IndexFiles.force(file);
        }
    }

    /**
     * Replaces the file with the current entries if they changed since it was last written
     * (durably: {@link DurableFiles#writeAtomically}; no entries = no file). Never under the
     * append lock; callers serialise it.
     */
    void persist() throws IOException {
        while (true) {
            List<AbortedTransaction> snapshot;
            long v;
            synchronized (this) {
                if (fileVersion == version) {
                    return;
                }
                snapshot = entries;
                v = version;
                replacing = true;
            }
            boolean written = false;
            try {
                if (snapshot.isEmpty()) {
                    Files.deleteIfExists(file);
                } else {
                    ByteBuffer all = ByteBuffer.allocate(snapshot.size() * ENTRY_SIZE);
                    for (AbortedTransaction t : snapshot) {
                        all.put(encode(t));
                    }
                    DurableFiles.writeAtomically(file, all.array());
                }
                written = true;
            } finally {
                synchronized (this) {
                    replacing = false;
                    if (written) {
                        fileVersion = v;
                    }
                }
            }
        }
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
