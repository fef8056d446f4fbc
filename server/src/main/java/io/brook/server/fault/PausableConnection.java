package io.brook.server.fault;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;

/**
 * First in a connection's pipeline: while {@linkplain NetworkFaults#pause paused} it holds the
 * bytes the client sends (the broker sees no request) and the answers the broker writes (the
 * client sees none), keeping the connection open; on resume it hands both on in their order.
 * When the connection closes meanwhile, what it held is released.
 *
 * <p>Threading: the channel's event loop only; pause and resume are scheduled onto it.
 */
final class PausableConnection extends ChannelDuplexHandler {
    private final NetworkFaults faults;
    private final ArrayDeque<Object> heldReads = new ArrayDeque<>();
    private final ArrayDeque<Object[]> heldWrites = new ArrayDeque<>();
    private ChannelHandlerContext ctx;
    private boolean paused;
    private boolean flushHeld;

    PausableConnection(NetworkFaults faults) {
        this.faults = faults;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        faults.register(this); // first: a pause from now on reaches this connection
        this.paused = faults.paused();
    }

    void pause() {
        paused = true;
    }

    void resume() {
        paused = false;
        while (!heldWrites.isEmpty()) {
            Object[] w = heldWrites.poll();
            ctx.write(w[0], (ChannelPromise) w[1]);
        }
        if (flushHeld) {
            flushHeld = false;
            ctx.flush();
        }
        boolean any = !heldReads.isEmpty();
        while (!heldReads.isEmpty()) {
            ctx.fireChannelRead(heldReads.poll());
        }
        if (any) {
            ctx.fireChannelReadComplete();
        }
    }

    /** Closes the connection at once (any thread), as a broker that drops it does. */
    void drop() {
        ctx.channel().close();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (paused) {
            heldReads.add(msg);
        } else {
            ctx.fireChannelRead(msg);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (!paused) {
            ctx.fireChannelReadComplete();
        }
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (paused) {
            heldWrites.add(new Object[] {msg, promise});
        } else {
            ctx.write(msg, promise);
        }
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        if (paused) {
            flushHeld = true;
        } else {
            ctx.flush();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        faults.unregister(this);
        while (!heldReads.isEmpty()) {
            ReferenceCountUtil.release(heldReads.poll());
        }
        while (!heldWrites.isEmpty()) {
            Object[] w = heldWrites.poll();
            ReferenceCountUtil.release(w[0]);
            ((ChannelPromise) w[1]).tryFailure(new ClosedChannelException());
        }
        super.channelInactive(ctx);
    }

    /** Runs {@code task} on this connection's event loop. */
    void onLoop(Runnable task) {
        ctx.executor().execute(task);
    }
}
