package io.brook.server.network;

import io.brook.server.time.Timer;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.timeout.IdleStateEvent;

/**
 * {@code connections.max.idle.ms}: when a connection has neither read a request nor been given
 * an answer to write for that long, fires an all-idle {@link IdleStateEvent} down the pipeline
 * (the {@link Connection} closes the connection unless a request is still being answered), then
 * waits another full period. Like Netty's IdleStateHandler, but on the broker's {@link Timer},
 * so that idle time runs on the broker's clock (virtual time in tests), and a write counts when
 * it is handed to the channel rather than when the socket took its last byte.
 *
 * <p>It sits behind the {@link RequestFrameDecoder}: what counts as reading is a whole request,
 * not a byte, so a client that trickles bytes without ever completing a request is idle (the
 * decoder's receive timeout closes it sooner).
 *
 * <p>Threading: every field is read and written on the channel's event loop; the timer's thread
 * only hands the check over to it.
 */
final class IdleTimeout extends ChannelDuplexHandler {

    private final Timer timer;
    private final long idleMs;
    private ChannelHandlerContext ctx;
    private long lastActivityMs;
    private boolean requestRead;
    private Timer.Scheduled check;
    private boolean stopped;

    IdleTimeout(Timer timer, long idleMs) {
        this.timer = timer;
        this.idleMs = idleMs;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        if (ctx.channel().isActive()) {
            start();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        start();
        super.channelActive(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        stop();
        super.channelInactive(ctx);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        stop();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        requestRead = true;
        ctx.fireChannelRead(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        if (requestRead) {
            requestRead = false;
            lastActivityMs = timer.nowMs();
        }
        ctx.fireChannelReadComplete();
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
        lastActivityMs = timer.nowMs();
        ctx.write(msg, promise);
    }

    private void start() {
        if (check != null || stopped) {
            return;
        }
        lastActivityMs = timer.nowMs();
        arm(idleMs);
    }

    private void stop() {
        stopped = true;
        Timer.Scheduled c = check;
        if (c != null) {
            c.cancel();
        }
    }

    private void arm(long delayMs) {
        check = timer.scheduleOn(ctx.executor(), delayMs, this::onDeadline);
    }

    private void onDeadline() {
        if (stopped) {
            return;
        }
        long idle = requestRead ? 0 : timer.nowMs() - lastActivityMs;
        if (idle >= idleMs) {
            arm(idleMs);
            ctx.fireUserEventTriggered(IdleStateEvent.ALL_IDLE_STATE_EVENT);
        } else {
            arm(idleMs - idle);
        }
    }
}
