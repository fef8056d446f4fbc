package io.brook.cluster.raft;

import io.brook.cluster.metadata.CorruptMetadataException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks a node's Raft log before Ratis reads it: cuts a torn tail off the open segment, gives a
 * closed segment whose rename a crash took its closed name back, and refuses a damaged closed
 * segment with a message that names it.
 *
 * <p>A crash in the middle of a write (a killed process between two writes of one entry, a power
 * loss before the written pages reached the disk) leaves the open segment ({@code
 * log_inprogress_<first index>}) with a last entry that is partly on disk, followed by zeros or by
 * pieces of later entries. Ratis refuses to start on such a file: it accepts a file that simply
 * ends early, but not an entry whose checksum fails or bytes after the zeros that end the log. The
 * entries from the first bad one on were not forced (Ratis forces before it counts an entry as
 * written), so no quorum counted them: this class truncates the file before that entry, logs what
 * it cut, and Ratis then starts with every entry before it. A follower gets the rest from the
 * leader again.
 *
 * <p>Only open segments are repaired. A closed segment ({@code log_<first>-<last>}) was forced whole
 * before Ratis closed it, so damage there is not a crash's doing, and cutting it could drop
 * entries a quorum counted: the start fails with a {@link CorruptMetadataException} that names
 * the file and the byte (Ratis' own refusal names neither). The other voters hold the same
 * entries.
 *
 * <p>The segment layout read here is Ratis': an 8-byte header {@code RaftLog1}, then per entry a
 * varint length, that many bytes of the entry and the CRC-32C of the varint and the entry
 * (big-endian); a zero byte where an entry would start ends the log.
 */
final class MetadataLogRepair {
    private static final Logger LOG = LoggerFactory.getLogger(MetadataLogRepair.class);
    private static final byte[] HEADER = "RaftLog1".getBytes(StandardCharsets.US_ASCII);
    private static final String OPEN_PREFIX = "log_inprogress_";
    private static final int CRC_BYTES = 4;
    private static final int MAX_VARINT_BYTES = 5;

    private MetadataLogRepair() {
    }

    /**
     * Checks every log segment under the Raft storage directories in {@code metadataDir} (one per
     * group, {@code <group id>/current}), repairing the open ones.
     *
     * @throws CorruptMetadataException if a closed segment is damaged
     */
    static void check(Path metadataDir) throws IOException {
        if (!Files.isDirectory(metadataDir)) {
            return;
        }
        List<Path> logDirs;
        try (Stream<Path> groups = Files.list(metadataDir)) {
            logDirs = groups.map(g -> g.resolve("current")).filter(Files::isDirectory).toList();
        }
        for (Path current : logDirs) {
            List<Path> open = new ArrayList<>();
            for (Path segment : segments(current).sorted().toList()) {
                if (segment.getFileName().toString().startsWith(OPEN_PREFIX)) {
                    repair(segment);
                    open.add(segment);
                } else {
                    checkClosed(segment);
                }
            }
            open.sort(Comparator.comparingLong(MetadataLogRepair::openStart));
            for (int i = 0; i + 1 < open.size(); i++) {
                closeAgain(open.get(i), openStart(open.get(i + 1)));
            }
        }
    }

    /**
     * Ratis closes a segment by renaming it ({@code log_inprogress_<first>} to {@code
     * log_<first>-<last>}) and then opens the next one; both names become durable at the next force
     * of the directory. A file system that does not keep name changes in order may lose the rename
     * and keep the new file, and Ratis refuses to start with two open segments. If {@code segment}'s
     * entries end right before {@code nextStart}, it was closed: it gets its closed name back.
     */
    private static void closeAgain(Path segment, long nextStart) throws IOException {
        long first = openStart(segment);
        long entries;
        try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.READ)) {
            ByteBuffer bytes = entries(ch);
            entries = bytes == null ? 0 : walk(bytes).entries();
        }
        if (entries == 0 || first + entries != nextStart) {
            return; // not a closed segment's lost rename: Ratis judges it
        }
        Path closed = segment.resolveSibling("log_" + first + "-" + (nextStart - 1));
        LOG.warn("Metadata log segment {} is followed by another open segment from index {}: it was closed and"
                + " its rename lost (a crash before the directory was forced); renaming it to {}", segment, nextStart,
                closed.getFileName());
        Files.move(segment, closed, StandardCopyOption.ATOMIC_MOVE);
        RaftDirectoryForcer.force(segment.getParent());
    }

    private static long openStart(Path openSegment) {
        return Long.parseLong(openSegment.getFileName().toString().substring(OPEN_PREFIX.length()));
    }

    private static Stream<Path> segments(Path current) {
        try (Stream<Path> files = Files.list(current)) {
            return files.filter(f -> f.getFileName().toString().startsWith("log_")).toList().stream();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Truncates an open {@code segment} before its first bad entry, if it has one; whether it did. */
    static boolean repair(Path segment) throws IOException {
        try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer bytes = entries(ch);
            if (bytes == null) {
                return false;
            }
            int good = validEnd(bytes);
            if (zerosFrom(bytes, good)) {
                return false;
            }
            LOG.warn("Metadata log segment {}: the entry at byte {} is torn (a crash during its write); "
                    + "cutting the {} bytes from there, which were never forced", segment, good, ch.size() - good);
            ch.truncate(good);
            ch.force(true);
            return true;
        }
    }

    private static void checkClosed(Path segment) throws IOException {
        try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.READ)) {
            ByteBuffer bytes = entries(ch);
            if (bytes == null) {
                return;
            }
            int good = validEnd(bytes);
            if (!zerosFrom(bytes, good)) {
                throw new CorruptMetadataException("Metadata log segment " + segment + " is damaged at byte " + good
                        + " of " + bytes.limit() + ": a closed segment, written whole before it was closed, so not a"
                        + " crash's doing; this node cannot start from its copy of the metadata log (the other"
                        + " voters hold the same entries)");
            }
        }
    }

    /**
     * The whole file, positioned after its header; null if it has no whole header that matches (a
     * header only partly written Ratis takes itself, a damaged one it refuses with its own message).
     */
    private static ByteBuffer entries(FileChannel ch) throws IOException {
        long size = ch.size();
        if (size < HEADER.length) {
            return null;
        }
        // a metadata segment is a few MiB at most (Ratis' segment size)
        ByteBuffer bytes = ByteBuffer.allocate(Math.toIntExact(size));
        while (bytes.hasRemaining() && ch.read(bytes) >= 0) {
            // until the buffer is full
        }
        bytes.flip();
        for (byte b : HEADER) {
            if (bytes.get() != b) {
                return null;
            }
        }
        return bytes;
    }

    /** The position after the last whole entry with a good checksum. */
    private static int validEnd(ByteBuffer bytes) {
        return walk(bytes).end();
    }

    /** Where the whole entries with good checksums end, and how many there are. */
    private record Walk(int end, long entries) {
    }

    private static Walk walk(ByteBuffer bytes) {
        CRC32C crc = new CRC32C();
        long entries = 0;
        while (bytes.hasRemaining()) {
            int start = bytes.position();
            if (bytes.get(start) == 0) {
                return new Walk(start, entries);
            }
            long length = 0;
            int shift = 0;
            byte b;
            do {
                if (!bytes.hasRemaining() || bytes.position() - start == MAX_VARINT_BYTES) {
                    return new Walk(start, entries);
                }
                b = bytes.get();
                length |= (long) (b & 0x7f) << shift;
                shift += 7;
            } while (b < 0);
            if (length > bytes.remaining() - CRC_BYTES) {
                return new Walk(start, entries);
            }
            int entryEnd = bytes.position() + (int) length;
            crc.reset();
            crc.update(bytes.duplicate().position(start).limit(entryEnd));
            if ((int) crc.getValue() != bytes.getInt(entryEnd)) {
                return new Walk(start, entries);
            }
            bytes.position(entryEnd + CRC_BYTES);
            entries++;
        }
        return new Walk(bytes.position(), entries);
    }

    private static boolean zerosFrom(ByteBuffer bytes, int from) {
        for (int i = from; i < bytes.limit(); i++) {
            if (bytes.get(i) != 0) {
                return false;
            }
        }
        return true;
    }
}
