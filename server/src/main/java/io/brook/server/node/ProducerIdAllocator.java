package io.brook.server.node;

import io.brook.storage.file.DurableFiles;
import io.brook.wire.protocol.Errors;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Hands out producer ids that are never reused, across restarts too: ids are reserved in blocks
 * of {@value #BLOCK} by durably recording the end of the block in {@code meta/producer-ids}
 * before any id of it is handed out. A crash loses at most the unused rest of one block.
 *
 * <p>In cluster mode ({@link #blocksFrom}) the blocks come from the controller instead, which
 * records each block in the metadata log before it hands it out, so no two nodes share an id.
 * {@link #nextAsync()} then waits for a new block without holding the caller's thread; callers
 * that run out together share one request for the next block.
 */
public final class ProducerIdAllocator {

    static final String FILE = "producer-ids";
    static final long BLOCK = 1000;

    private final Path file;
    private long next;
    private long blockEnd;
    private BlockSource blocks;
    /** The request for the next block from {@link #blocks}, while one is under way. */
    private CompletableFuture<Block> pending;

    /** How long {@link #next()} waits for a block from the controller. */
    static final long BLOCK_WAIT_MS = 30_000;

    /** Where cluster mode's blocks come from: the next block for this node, once the controller answers. */
    public interface BlockSource {
        /** The next block: {@code [firstId, firstId + size)}; fails with the controller's error. */
        CompletableFuture<Block> next();
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

    /**
     * The next producer id; in cluster mode completes once a block is there (at once while the
     * current one lasts), failed with the controller's error if it could not give one.
     */
    public CompletableFuture<Long> nextAsync() {
        CompletableFuture<Block> wait;
        synchronized (this) {
            if (blocks == null || next < blockEnd) {
                return CompletableFuture.completedFuture(take());
            }
            wait = pending;
            if (wait == null) {
                CompletableFuture<Block> p = blocks.next();
                pending = p;
                wait = p;
                p.whenComplete((b, e) -> blockArrived(p, b));
            }
        }
        // the block may be used up by the callers ahead of this one: then it asks again
        return wait.thenCompose(b -> nextAsync());
    }

    private synchronized void blockArrived(CompletableFuture<Block> request, Block b) {
        if (pending == request) {
            pending = null;
        }
        if (b != null && next == blockEnd) {
            next = b.firstId();
            blockEnd = b.firstId() + b.size();
        }
    }

    /** The next producer id; in cluster mode waits (up to {@link #BLOCK_WAIT_MS}) for a block when one runs out. */
    public long next() {
        synchronized (this) {
            if (blocks == null || next < blockEnd) {
                return take();
            }
        }
        try {
            return nextAsync().get(BLOCK_WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for producer ids", e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } catch (TimeoutException e) {
            throw new ClusterAdminException(Errors.REQUEST_TIMED_OUT,
                    "The controller gave no producer ids in time.");
        }
    }

    private synchronized long take() {
        if (next == blockEnd) {
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
