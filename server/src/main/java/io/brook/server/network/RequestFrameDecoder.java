package io.brook.server.network;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Splits the byte stream into request frames: a big-endian int32 size (excluding itself)
 * followed by that many bytes. Emits each frame as a retained slice of the read buffer (no copy).
 *
 * <p>A size below {@value #MIN_FRAME} (too short for any request header) or above
 * {@code socket.request.max.bytes} closes the connection at once, before any of the claimed
 * bytes are buffered, with one log line naming the client and the reason.
 */
final class RequestFrameDecoder extends ByteToMessageDecoder {

    private static final Logger LOG = LoggerFactory.getLogger(RequestFrameDecoder.class);

    /** api_key int16 + api_version int16 + correlation_id int32 + client_id length int16. */
    static final int MIN_FRAME = 10;
    static final int SIZE_PREFIX = 4;

    private final int maxFrame;
    private boolean failed;

    RequestFrameDecoder(int maxFrame) {
        this.maxFrame = maxFrame;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        while (in.readableBytes() >= SIZE_PREFIX) {
            int start = in.readerIndex();
            int size = in.getInt(start);
            if (size < MIN_FRAME || size > maxFrame) {
                failed = true;
                in.skipBytes(in.readableBytes());
                String reason = size < 0 ? "negative request size " + size
                        : size < MIN_FRAME ? "request size " + size + " is smaller than a request header"
                        : "request size " + size + " exceeds socket.request.max.bytes=" + maxFrame;
                LOG.warn("Closing connection from {}: {}", ctx.channel().remoteAddress(), reason);
                ctx.close();
                return;
            }
            if (in.readableBytes() - SIZE_PREFIX < size) {
                return;
            }
            out.add(in.retainedSlice(start + SIZE_PREFIX, size));
            in.readerIndex(start + SIZE_PREFIX + size);
        }
    }
}
