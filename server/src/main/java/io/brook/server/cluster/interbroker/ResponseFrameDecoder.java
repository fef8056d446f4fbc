package io.brook.server.cluster.interbroker;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Splits the bytes another broker sends into answers: each is an int32 size followed by that many
 * bytes, passed on without the size as a retained slice. A size below zero or above
 * {@code maxFrameBytes} closes the connection (every length on the wire is hostile). Confined to
 * its channel's event loop.
 */
final class ResponseFrameDecoder extends ChannelInboundHandlerAdapter {

    private final int maxFrameBytes;
    private CompositeByteBuf received;

    ResponseFrameDecoder(int maxFrameBytes) {
        this.maxFrameBytes = maxFrameBytes;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        if (received == null) {
            received = ctx.alloc().compositeBuffer(Integer.MAX_VALUE);
        }
        received.addComponent(true, in);
        while (received.readableBytes() >= 4) {
            int size = received.getInt(received.readerIndex());
            if (size < 0 || size > maxFrameBytes) {
                release();
                ctx.close();
                return;
            }
            if (received.readableBytes() < 4 + size) {
                break;
            }
            received.skipBytes(4);
            ctx.fireChannelRead(received.readRetainedSlice(size));
        }
        if (received != null) {
            received.discardReadComponents();
        }
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        release();
    }

    private void release() {
        if (received != null) {
            received.release();
            received = null;
        }
    }
}
