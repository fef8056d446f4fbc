package io.brook.server.network;

import io.brook.server.security.Session;
import io.brook.server.time.Timer;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code brook.sasl.authentication.timeout.ms}: a connection to a SASL listener that has not
 * authenticated this long after it was accepted is closed. Kafka has no such bound (an
 * unauthenticated connection lives until {@code connections.max.idle.ms}, ten minutes); here a
 * crowd of sockets that connect and never log in holds connection slots ({@code max.connections})
 * for at most this long. A TLS listener's handshake has its own, shorter bound (Netty's 10 s), which
 * runs inside this one on SASL_SSL.
 *
 * <p>Threading: the check runs on the channel's event loop (the timer's thread hands it over).
 */
final class AuthenticationDeadline extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(AuthenticationDeadline.class);

    private final Timer timer;
    private final long timeoutMs;
    private final Session session;
    private Timer.Scheduled check;

    AuthenticationDeadline(Timer timer, long timeoutMs, Session session) {
        this.timer = timer;
        this.timeoutMs = timeoutMs;
        this.session = session;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        if (ctx.channel().isActive()) {
            arm(ctx);
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        arm(ctx);
        super.channelActive(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        cancel();
        super.channelInactive(ctx);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        cancel();
    }

    private void arm(ChannelHandlerContext ctx) {
        if (check == null) {
            check = timer.scheduleOn(ctx.executor(), timeoutMs, () -> {
                if (ctx.channel().isActive() && !session.authenticated()) {
                    LOG.info("Closing connection from {} on listener {}: not authenticated within"
                            + " brook.sasl.authentication.timeout.ms={}", ctx.channel().remoteAddress(),
                            session.listenerName(), timeoutMs);
                    ctx.close();
                }
            });
        }
    }

    private void cancel() {
        Timer.Scheduled c = check;
        if (c != null) {
            c.cancel();
        }
    }
}
