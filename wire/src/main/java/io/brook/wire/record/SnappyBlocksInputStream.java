package io.brook.wire.record;

import org.xerial.snappy.Snappy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;

/**
 * The decompressed bytes of a snappy records section, one block at a time: snappy-java's framing
 * (16-byte header with magic {@code 0x82 "SNAPPY" 0}, then chunks of
 * {@code int32 length + raw snappy block}, the header repeated where streams were concatenated)
 * or, as the Java clients have always accepted, one plain raw snappy block.
 *
 * <p>Bound: a block declares its uncompressed length; a declared length above what may still be
 * produced ({@code maxBytes} in all) is refused before anything is allocated, so the block
 * buffer never exceeds {@code maxBytes}. It is reused from block to block.
 */
final class SnappyBlocksInputStream extends InputStream {
    private static final byte[] MAGIC = {(byte) 0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0};
    /** Magic plus the int32 version and int32 compatible-version that follow it. */
    private static final int HEADER_SIZE = 16;

    private final byte[] in;
    private final int start;
    private final int end;
    private final boolean framed;
    private int p;
    private final int maxBytes;
    private long budget;
    private byte[] block = new byte[0];
    private int blockPos;
    private int blockLen;

    SnappyBlocksInputStream(ByteBuffer src, int from, int to, int maxBytes) {
        if (src.hasArray()) {
            in = src.array();
            start = src.arrayOffset() + from;
            end = src.arrayOffset() + to;
        } else {
            in = new byte[to - from];
            src.get(from, in);
            start = 0;
            end = in.length;
        }
        framed = end - start >= HEADER_SIZE && startsWithMagic(start);
        p = start;
        this.maxBytes = maxBytes;
        budget = maxBytes;
    }

    @Override
    public int read() throws IOException {
        if (!ensureBlock()) {
            return -1;
        }
        return block[blockPos++] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        if (!ensureBlock()) {
            return -1;
        }
        int n = Math.min(len, blockLen - blockPos);
        System.arraycopy(block, blockPos, b, off, n);
        blockPos += n;
        return n;
    }

    /** Decodes the next non-empty block if the current one is used up; false at the end. */
    private boolean ensureBlock() throws IOException {
        while (blockPos == blockLen) {
            if (p >= end) {
                return false;
            }
            if (!framed) {
                decode(p, end - p);
                p = end;
                continue;
            }
            if (startsWithMagic(p)) {
                if (end - p < HEADER_SIZE) {
                    throw new CorruptRecordException("snappy: truncated stream header at byte " + (p - start));
                }
                p += HEADER_SIZE;
                continue;
            }
            if (end - p < 4) {
                throw new CorruptRecordException("snappy: truncated chunk length at byte " + (p - start));
            }
            int chunk = ((in[p] & 0xFF) << 24) | ((in[p + 1] & 0xFF) << 16) | ((in[p + 2] & 0xFF) << 8)
                    | (in[p + 3] & 0xFF);
            p += 4;
            if (chunk < 0 || chunk > end - p) {
                throw new CorruptRecordException("snappy: chunk length " + chunk + " exceeds the " + (end - p)
                        + " bytes that remain");
            }
            decode(p, chunk);
            p += chunk;
        }
        return true;
    }

    private void decode(int off, int len) throws IOException {
        blockPos = 0;
        blockLen = 0;
        if (len == 0) {
            return;
        }
        int size = Snappy.uncompressedLength(in, off, len);
        if (size < 0) {
            throw new CorruptRecordException("snappy: block declares a negative uncompressed length");
        }
        if (size > budget) {
            throw new CorruptRecordException("snappy records section decompresses to more than " + maxBytes + " bytes");
        }
        if (block.length < size) {
            block = new byte[size];
        }
        // The native decoder writes exactly the declared length and relies on the caller for room.
        int n = Snappy.uncompress(in, off, len, block, 0);
        if (n != size) {
            throw new CorruptRecordException("snappy: block declared " + size + " bytes but produced " + n);
        }
        budget -= n;
        blockLen = n;
    }

    private boolean startsWithMagic(int at) {
        if (end - at < MAGIC.length) {
            return false;
        }
        for (int i = 0; i < MAGIC.length; i++) {
            if (in[at + i] != MAGIC[i]) {
                return false;
            }
        }
        return true;
    }
}
