package io.brook.storage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * Walks the batches of a segment file sequentially through one reusable buffer (start-up
 * recovery, index rebuilds, producer-state replay, compaction). Never trusts a length field:
 * each is checked against the bytes left in the file and against a maximum batch size before
 * the buffer grows.
 *
 * <p>Usage: {@code while (scanner.next()) { use buffer(), batchPosition(), filePosition() }};
 * after the loop {@link #error()} is null at a clean end, else why the scan stopped at
 * {@link #filePosition()}.
 */
final class BatchScanner {
    private final FileChannel channel;
    private final long end;
    private final boolean verify;
    private final int maxBatchSize;
    private ByteBuffer buf;
    private long bufFilePosition;
    private long nextFilePosition;
    private long filePosition;
    private int batchPosition;
    private String error;

    /**
     * @param verify when true every batch is loaded whole and its CRC checked; otherwise only
     *               headers are guaranteed to be in the buffer
     */
    BatchScanner(FileChannel channel, long start, long end, boolean verify, int maxBatchSize) {
        this.channel = channel;
        this.end = end;
        this.verify = verify;
        this.maxBatchSize = Math.max(maxBatchSize, BatchHeader.HEADER_SIZE);
        this.buf = ByteBuffer.allocate(64 * 1024);
        this.buf.limit(0);
        this.bufFilePosition = start;
        this.nextFilePosition = start;
    }

    ByteBuffer buffer() {
        return buf;
    }

    int batchPosition() {
        return batchPosition;
    }

    /** File position of the current batch, or after the loop, where the scan stopped. */
    long filePosition() {
        return filePosition;
    }

    String error() {
        return error;
    }

    boolean next() throws IOException {
        filePosition = nextFilePosition;
        if (filePosition >= end) {
            return false;
        }
        long left = end - filePosition;
        if (left < BatchHeader.HEADER_SIZE) {
            error = "truncated batch header: " + left + " bytes left";
            return false;
        }
        if (!ensure(filePosition, BatchHeader.HEADER_SIZE)) {
            error = "short read";
            return false;
        }
        int p = (int) (filePosition - bufFilePosition);
        int length = BatchHeader.batchLength(buf, p);
        if (length < BatchHeader.MIN_BATCH_LENGTH) {
            error = "batch length " + length + " below minimum";
            return false;
        }
        long size = (long) BatchHeader.LOG_OVERHEAD + length;
        if (size > left) {
            error = "batch of " + size + " bytes exceeds the " + left + " bytes left in the file";
            return false;
        }
        if (size > maxBatchSize) {
            error = "batch of " + size + " bytes exceeds the maximum of " + maxBatchSize;
            return false;
        }
        if (BatchHeader.magic(buf, p) != 2) {
            error = "magic " + BatchHeader.magic(buf, p);
            return false;
        }
        if (verify) {
            if (!ensure(filePosition, (int) size)) {
                error = "short read";
                return false;
            }
            p = (int) (filePosition - bufFilePosition);
            String reason = BatchHeader.checkStored(buf, p, (int) size);
            if (reason != null) {
                error = reason;
                return false;
            }
        }
        batchPosition = p;
        nextFilePosition = filePosition + size;
        return true;
    }

    /** Loads the whole current batch into the buffer (after a header-only {@link #next()}). */
    boolean loadWhole() throws IOException {
        int size = BatchHeader.sizeInBytes(buf, batchPosition);
        if (!ensure(filePosition, size)) {
            return false;
        }
        batchPosition = (int) (filePosition - bufFilePosition);
        return true;
    }

    /** Makes file bytes [position, position + len) available in the buffer. */
    private boolean ensure(long position, int len) throws IOException {
        long have = bufFilePosition + buf.limit();
        if (position >= bufFilePosition && position + len <= have) {
            return true;
        }
        if (buf.capacity() < len) {
            buf = ByteBuffer.allocate(Math.max(len, buf.capacity() * 2));
        }
        buf.clear();
        bufFilePosition = position;
        long limit = Math.min(end - position, buf.capacity());
        buf.limit((int) limit);
        while (buf.hasRemaining()) {
            int n = channel.read(buf, bufFilePosition + buf.position());
            if (n < 0) {
                break;
            }
        }
        buf.flip();
        return buf.limit() >= len;
    }
}
