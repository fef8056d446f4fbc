package io.brook.server.network;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes a TLS connection whose client starts a new handshake after the first one (a TLS 1.2
 * renegotiation), before the TLS engine sees it. The JDK's engine accepts client-initiated
 * renegotiation unless a JVM-wide property says otherwise, and each one costs the broker a full
 * handshake's CPU on a connection that {@code max.connections} and the connection-rate quota
 * have already counted; OpenSSL (BoringSSL) and Kafka refuse it.
 *
 * <p>How: sits in front of the {@code SslHandler} and follows the TLS record headers (type,
 * version, length: five bytes) of everything the client sends, skipping the bodies. Once the
 * handshake has completed ({@link #handshakeDone}), a record of type handshake (22) can only be a
 * renegotiation: in TLS 1.2 nothing else sends one, and TLS 1.3 sends its post-handshake
 * messages inside application-data records. Records are followed from the first byte, so a
 * read that mixes the end of the handshake with later records keeps the count right.
 *
 * <p>Threading: the channel's event loop only.
 */
final class RenegotiationGuard extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(RenegotiationGuard.class);

    static final int HEADER = 5;
    static final byte HANDSHAKE = 22;

    private final String listener;
    private final byte[] header = new byte[HEADER];
    private int headerBytes;
    /** Body bytes of the current record still to come. */
    private int bodyLeft;
    private boolean handshakeDone;
    private boolean closed;

    RenegotiationGuard(String listener) {
        this.listener = listener;
    }

    /** The first handshake completed: another one is refused from now on. */
    void handshakeDone() {
        handshakeDone = true;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        if (closed) {
            in.release();
            return;
        }
        int i = in.readerIndex();
        int end = in.writerIndex();
        while (i < end) {
            if (bodyLeft > 0) {
                int n = Math.min(bodyLeft, end - i);
                i += n;
                bodyLeft -= n;
                continue;
            }
            header[headerBytes++] = in.getByte(i++);
            if (headerBytes == HEADER) {
                headerBytes = 0;
                bodyLeft = ((header[3] & 0xff) << 8) | (header[4] & 0xff);
                if (handshakeDone && header[0] == HANDSHAKE) {
                    closed = true;
                    in.release();
                    LOG.info("Closing connection from {} on listener {}: the client started a TLS renegotiation,"
                            + " which Brook does not allow", ctx.channel().remoteAddress(), listener);
                    ctx.close();
                    return;
                }
            }
        }
        ctx.fireChannelRead(in);
    }
}
