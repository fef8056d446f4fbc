package io.brook.server.node;

import io.brook.coordinator.txn.ProducerIdsPending;
import io.brook.storage.file.DurableFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;

/**
 * Hands out producer ids that are never reused, across restarts too: ids are reserved in blocks
 * of {@value #BLOCK} by durably recording the end of the block in {@code meta/producer-ids}
 * before any id of it is handed out. A crash loses at most the unused rest of one block.
 *
 * <p>In cluster mode ({@link #blocksFrom}) the blocks come from the controller instead, which
 * records each block in the metadata log before it hands it out, so no two nodes share an id.
 * As Kafka's brokers do, the next block is asked for ahead, once 90% of the current one is used,
 * so that a busy node rarely runs out. When it does run out, no caller's thread waits:
 * {@link #nextAsync()} completes once the next block is there (callers that run out together
 * share one request for it), and {@link #nextOrPending()}, the transaction coordinator's source,
 * throws {@link ProducerIdsPending} with the block's arrival to run its request again on.
 */
public final class ProducerIdAllocator {

    static final String FILE = "producer-ids";
    static final long BLOCK = 1000;

    private final Path file;
    private long next;
    private long blockEnd;
    /** Where the current block started (cluster mode: for the prefetch at 90%). */
    private long blockStart;
    private BlockSource blocks;
    /** The request for the next block from {@link #blocks}, while one is under way. */
    private CompletableFuture<Block> pending;
    /** The next block, when it came before the current one was used up. */
    private Block spare;

    /** The share of a block used when the next one is asked for (Kafka's 90%). */
    static final double PREFETCH_AT = 0.9;

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
        this.blockStart = next;
    }

    /**
     * The next producer id; in cluster mode completes once a block is there (at once while the
     * current one lasts), failed with the controller's error if it could not give one.
     */
    public CompletableFuture<Long> nextAsync() {
        CompletableFuture<Block> wait;
        synchronized (this) {
            if (hasId()) {
                return CompletableFuture.completedFuture(take());
            }
            wait = requestBlock();
        }
        // the block may be used up by the callers ahead of this one: then it asks again
        return wait.thenCompose(b -> nextAsync());
    }

    /**
     * The next producer id if one is at hand, else (cluster mode, the block used up) throws
     * {@link ProducerIdsPending} with the next block's arrival: the transaction coordinator's
     * source, which must not wait on its thread.
     */
    public long nextOrPending() {
        CompletableFuture<Block> wait;
        synchronized (this) {
            if (hasId()) {
                return take();
            }
            wait = requestBlock();
        }
        throw new ProducerIdsPending(wait);
    }

    private synchronized boolean hasId() {
        return blocks == null || next < blockEnd || spare != null;
    }

    /**
     * The request for the next block under way, or a new one; it completes only once the block
     * is installed, so that whoever waits for it finds the ids there.
     */
    private synchronized CompletableFuture<Block> requestBlock() {
        CompletableFuture<Block> p = pending;
        if (p == null) {
            CompletableFuture<Block> request = new CompletableFuture<>();
            pending = request;
            blocks.next().whenComplete((b, e) -> {
                blockArrived(request, b);
                if (e != null) {
                    request.completeExceptionally(e);
                } else {
                    request.complete(b);
                }
            });
            p = request;
        }
        return p;
    }

    private synchronized void blockArrived(CompletableFuture<Block> request, Block b) {
        if (pending == request) {
            pending = null;
        }
        if (b == null) {
            return; // failed: the callers waiting for it get the error; the next one asks again
        }
        if (next == blockEnd) {
            use(b);
        } else {
            spare = b;
        }
    }

    private void use(Block b) {
        next = b.firstId();
        blockStart = b.firstId();
        blockEnd = b.firstId() + b.size();
    }

    private synchronized long take() {
        if (blocks != null) {
            if (next == blockEnd) {
                use(spare);
                spare = null;
            }
            long id = next++;
            if (spare == null && pending == null && next - blockStart >= PREFETCH_AT * (blockEnd - blockStart)) {
                requestBlock(); // ahead of need: a failure here is retried when the block runs out
            }
            return id;
        }
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
