package io.brook.server.node;

import io.brook.storage.file.DurableFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Hands out producer ids that are never reused, across restarts too: ids are reserved in blocks
 * of {@value #BLOCK} by durably recording the end of the block in {@code meta/producer-ids}
 * before any id of it is handed out. A crash loses at most the unused rest of one block.
 *
 * <p>In cluster mode ({@link #blocksFrom}) the blocks come from the controller instead, which
 * records each block in the metadata log before it hands it out, so no two nodes share an id.
 */
public final class ProducerIdAllocator {

    static final String FILE = "producer-ids";
    static final long BLOCK = 1000;

    private final Path file;
    private long next;
    private long blockEnd;
    private BlockSource blocks;

    /** Where cluster mode's blocks come from: the next block for this node (may block until the controller answers). */
    public interface BlockSource {
        /** The next block: {@code [firstId, firstId + size)}. */
        Block next();
    }

    /** A block of producer ids. */
    public record Block(long firstId, int size) {
    }

    private ProducerIdAllocator(Path file, long next) {
        this.file = file;
        this.next = next;
        this.blockEnd = next;
    }

    public static ProducerIdAllocator open(Path metaDir) throws IOException {
        Path f = metaDir.resolve(FILE);
        long next = 0;
        if (Files.exists(f)) {
            String s = Files.readString(f, StandardCharsets.UTF_8).trim();
            try {
                next = Long.parseLong(s);
            } catch (NumberFormatException e) {
                throw new IOException(f + ": not a producer id: '" + s + "'");
            }
            if (next < 0) {
                throw new IOException(f + ": negative producer id " + next);
            }
        }
        return new ProducerIdAllocator(f, next);
    }

    /** Cluster mode: from now on each block comes from {@code source}; ids of the current block are not used. */
    public synchronized void blocksFrom(BlockSource source) {
        this.blocks = source;
        this.blockEnd = next;
    }

    public synchronized long next() {
        if (next == blockEnd && blocks != null) {
            Block b = blocks.next();
            next = b.firstId();
            blockEnd = b.firstId() + b.size();
        } else if (next == blockEnd) {
            long end = blockEnd + BLOCK;
            try {
                DurableFiles.writeAtomically(file, (end + "\n").getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot reserve producer ids in " + file, e);
            }
            blockEnd = end;
        }
        return next++;
    }
}
