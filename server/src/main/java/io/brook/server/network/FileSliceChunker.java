package io.brook.server.network;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.stream.ChunkedInput;
import java.io.EOFException;
import java.io.IOException;
import java.nio.channels.FileChannel;

/**
 * On a TLS connection, turns each file region of an answer into a {@link ChunkedInput} that
 * the {@link io.netty.handler.stream.ChunkedWriteHandler} in front of it reads chunk by chunk
 * (one {@code pread} of up to {@value #CHUNK} bytes into a pooled direct buffer) as the socket
 * drains, for the TLS engine to encrypt. The file belongs to the log segment and stays open.
 *
 * <p>Back-pressure: the chunked writer's queue is invisible to the channel's write buffer, so
 * the bytes of file slices not read yet are counted here; above the channel's high water mark
 * {@link #holding} tells the connection to read no further requests (as queued file regions do on
 * a plaintext connection) until they fall below the low water mark, when a writability-changed
 * event lets it resume. That must not touch the channel's writability: the chunked writer reads
 * the next chunk only while the channel is writable, so slices that made it unwritable would never
 * be read and an answer with more file bytes than the high water mark would never be sent. One
 * instance per connection; event loop only.
 */
final class FileSliceChunker extends ChannelOutboundHandlerAdapter {

    /**
     * One TLS record holds 16 KiB; sixteen of them per read (and, with OpenSSL, per seal) keep the
     * system calls and the engine's calls few: in runs of Brook alone, 256 KiB took about 15 % off
     * the broker's CPU per GB read by four consumers over TLS against 64 KiB (BENCHMARKS.md,
     * 2026-12-07; against Kafka the difference is within the runs' spread).
     */
    static final int CHUNK = 256 * 1024;

    private ChannelHandlerContext ctx;
    private long pending;
    private boolean holding;

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof FileRegions.SharedFileRegion region) {
            FileSlice slice = new FileSlice(region.file(), region.position(), region.count());
            region.release();
            pendingChanged(slice.length);
            ctx.write(slice, promise);
        } else {
            ctx.write(msg, promise);
        }
    }

    /** Whether file bytes waiting to be read passed the high water mark and have not yet fallen below the low one. */
    boolean holding() {
        return holding;
    }

    private void pendingChanged(long delta) {
        pending += delta;
        if (!holding && pending > ctx.channel().config().getWriteBufferHighWaterMark()) {
            holding = true;
        } else if (holding && pending < ctx.channel().config().getWriteBufferLowWaterMark()) {
            holding = false;
            // towards the connection, which resumes reading if nothing else holds it
            ctx.fireChannelWritabilityChanged();
        }
    }

    /** Bytes {@code [position, position + count)} of a file, read in chunks. */
    final class FileSlice implements ChunkedInput<ByteBuf> {
        private final FileChannel file;
        private final long end;
        private final long length;
        private long next;

        FileSlice(FileChannel file, long position, long count) {
            this.file = file;
            this.next = position;
            this.end = position + count;
            this.length = count;
        }

        @Override
        public boolean isEndOfInput() {
            return next >= end;
        }

        @Override
        public void close() {
            // the file belongs to the log segment; what was not read is no longer pending
            if (next < end) {
                long left = end - next;
                next = end;
                pendingChanged(-left);
            }
        }

        @Override
        @Deprecated
        public ByteBuf readChunk(ChannelHandlerContext ctx) throws IOException {
            return readChunk(ctx.alloc());
        }

        @Override
        public ByteBuf readChunk(ByteBufAllocator alloc) throws IOException {
            if (next >= end) {
                return null;
            }
            int size = (int) Math.min(CHUNK, end - next);
            ByteBuf buf = alloc.directBuffer(size);
            boolean ok = false;
            try {
                int at = 0;
                while (at < size) {
                    int n = buf.setBytes(at, file, next + at, size - at);
                    if (n < 0) {
                        throw new EOFException("file ended " + (size - at) + " bytes before the records sent from it");
                    }
                    at += n;
                }
                buf.writerIndex(size);
                next += size;
                pendingChanged(-size);
                ok = true;
                return buf;
            } finally {
                if (!ok) {
                    buf.release();
                }
            }
        }

        @Override
        public long length() {
            return length;
        }

        @Override
        public long progress() {
            return length - (end - next);
        }
    }
}
