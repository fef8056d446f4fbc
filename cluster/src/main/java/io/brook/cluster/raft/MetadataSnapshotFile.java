package io.brook.cluster.raft;

import io.brook.cluster.metadata.CorruptMetadataException;
import io.brook.cluster.metadata.MetadataCodec;
import io.brook.cluster.metadata.MetadataRecord;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The file of a metadata snapshot: the records that rebuild the image, as one batch of {@link
 * MetadataCodec}, behind its CRC-32C.
 *
 * <pre>
 * crc32c of the batch (i32) | batch
 * </pre>
 *
 * Written to a temporary file, forced, renamed over the final name and the directory forced, so
 * that a crash leaves either no snapshot or a whole one (Ratis adds its MD5 file beside it).
 */
final class MetadataSnapshotFile {
    private static final int CRC_BYTES = 4;

    private MetadataSnapshotFile() {
    }

    static void write(Path file, List<MetadataRecord> records) throws IOException {
        byte[] batch = MetadataCodec.encodeBatch(records);
        CRC32C crc = new CRC32C();
        crc.update(batch);
        ByteBuffer bytes = ByteBuffer.allocate(CRC_BYTES + batch.length);
        bytes.putInt((int) crc.getValue()).put(batch).flip();
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            while (bytes.hasRemaining()) {
                ch.write(bytes);
            }
            ch.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        RaftDirectoryForcer.force(file.getParent());
    }

    static List<MetadataRecord> read(Path file) throws IOException {
        ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file));
        if (bytes.remaining() < CRC_BYTES) {
            throw new CorruptMetadataException("snapshot " + file + " has " + bytes.remaining() + " bytes");
        }
        int stored = bytes.getInt();
        CRC32C crc = new CRC32C();
        crc.update(bytes.duplicate());
        if ((int) crc.getValue() != stored) {
            throw new CorruptMetadataException("snapshot " + file + " fails its CRC-32C check");
        }
        return MetadataCodec.decodeBatch(bytes);
    }
}
