package io.brook.server.network;

import io.netty.buffer.ByteBuf;
import io.netty.channel.FileRegion;
import io.netty.channel.MessageSizeEstimator;

/**
 * How many bytes a queued answer counts against its channel's write buffer water marks: every
 * byte it will send, those of file regions included (Netty's default counts a region as 0 bytes,
 * so a client that never reads its fetch answers was never paused).
 */
final class ResponseSizeEstimator implements MessageSizeEstimator {

    static final ResponseSizeEstimator INSTANCE = new ResponseSizeEstimator();

    private final Handle handle = msg -> {
        if (msg instanceof ByteBuf b) {
            return b.readableBytes();
        }
        if (msg instanceof FileRegion r) {
            return (int) Math.min(Integer.MAX_VALUE, r.count() - r.transferred());
        }
        return 8;
    };

    private ResponseSizeEstimator() {
    }

    @Override
    public Handle newHandle() {
        return handle;
    }
}
