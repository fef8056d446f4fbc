package io.brook.wire.record;

import java.io.InputStream;
import java.nio.ByteBuffer;

/**
 * Reads bytes [from, to) of a buffer with absolute gets, leaving the buffer's position alone.
 * Not thread-safe.
 */
final class ByteBufferInputStream extends InputStream {
    private final ByteBuffer buffer;
    private final int to;
    private int position;

    ByteBufferInputStream(ByteBuffer buffer, int from, int to) {
        this.buffer = buffer;
        this.position = from;
        this.to = to;
    }

    @Override
    public int read() {
        return position < to ? buffer.get(position++) & 0xFF : -1;
    }

    @Override
    public int read(byte[] b, int off, int len) {
        if (len == 0) {
            return 0;
        }
        int n = Math.min(len, to - position);
        if (n <= 0) {
            return -1;
        }
        buffer.get(position, b, off, n);
        position += n;
        return n;
    }

    @Override
    public long skip(long n) {
        long skipped = Math.max(0, Math.min(n, to - position));
        position += (int) skipped;
        return skipped;
    }

    @Override
    public int available() {
        return to - position;
    }
}
