package io.brook.server.network;

import io.brook.server.time.Timer;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Splits the byte stream into request frames: a big-endian int32 size (excluding itself)
 * followed by that many bytes. Emits each frame as a retained slice of the bytes read (no copy),
 * and decides when the connection is read at all.
 *
 * <p>Bad sizes: a size below {@value #MIN_FRAME} (too short for any request header; a raw SASL
 * token after a v0 handshake may be shorter) or above {@code socket.request.max.bytes} (above
 * {@code sasl.server.max.receive.size} while a SASL client has not authenticated, as the {@link
 * Gate} says) closes the connection at once, before any of the claimed bytes are buffered, with
 * one log line naming the client and the reason.
 *
 * <p>Memory: bytes are buffered only as they arrive (a claimed size allocates nothing), and
 * every byte read counts against the broker-wide {@code queued.max.request.bytes} budget until
 * its request completes (the {@link Connection} gives a frame's bytes back then). While the
 * budget is exceeded no connection reads more — a new one does not even start — but frames
 * already read are still handed on. Counting bytes that arrived rather than sizes that were
 * claimed (Kafka reserves the claimed size) means a client cannot lock the budget with a few
 * size prefixes; it has to send the bytes. Nothing deadlocks: requests in flight complete and
 * give their bytes back, and an incomplete frame keeps its receive deadline (below) while the
 * connection waits for the budget, so bytes held by half-sent frames are freed within it.
 *
 * <p>Before authentication: while a SASL client has not authenticated ({@link Gate#authenticated}),
 * the bytes it sends count against a budget of their own, {@code queued.max.request.bytes} / 8,
 * instead of the broker-wide one (Kafka reads unauthenticated frames outside its request memory
 * pool altogether), so clients that never log in cannot stop the reads of authenticated clients
 * or of other listeners. When that budget is exceeded, the unauthenticated connections holding
 * the most of it are closed ({@link UnauthenticatedHolders}) and the others wait only until those
 * bytes are given back: clients that start large frames and never finish them cannot keep new
 * logins waiting. A frame read before authentication moves to the broker-wide budget when it is
 * handed on (a login's few hundred bytes).
 *
 * <p>Pacing: before each frame the {@link Connection} is asked whether it takes another one (its
 * bound of requests and bytes in flight, and of answers its client has not read). While it does
 * not, frames stay here, the channel stops reading (autoRead off), and {@link #resume} — called
 * by the connection once it drained — emits them and reads on. So one socket read that holds a
 * thousand pipelined requests still hands the connection only as many as its bounds allow.
 *
 * <p>Slow senders: once the first byte of a frame arrived, the rest must arrive within
 * {@code brook.request.receive.timeout.ms}, else the connection is closed (a client that trickles
 * a large frame a byte at a time would otherwise hold its buffer for as long as it likes). The
 * clock stops while the connection holds complete frames it may not hand on yet (that wait is
 * the broker's, not the client's).
 *
 * <p>Threading: everything runs on the channel's event loop; the timer's thread only hands the
 * deadline check over to it.
 */
final class RequestFrameDecoder extends ChannelInboundHandlerAdapter implements UnauthenticatedHolders.Holder {

    private static final Logger LOG = LoggerFactory.getLogger(RequestFrameDecoder.class);

    /** api_key int16 + api_version int16 + correlation_id int32 + client_id length int16. */
    static final int MIN_FRAME = 10;
    static final int SIZE_PREFIX = 4;

    /** The connection's side of the pacing. */
    interface Gate {
        /** True when the connection takes another request now. */
        boolean acceptsFrame();

        /** Called once per pause (a counter for tests and metrics). */
        void paused();

        /**
         * The largest frame the connection takes now, {@code configured} ({@code
         * socket.request.max.bytes}) or less: less before a SASL client authenticated.
         */
        int maxFrame(int configured);

        /** The smallest frame it takes now: a request header, or any size for a raw SASL token. */
        int minFrame();

        /** False while a SASL client has not authenticated (its bytes count against the pre-authentication budget). */
        boolean authenticated();
    }

    private final int maxFrame;
    private final ByteBudget requestBytes;
    /** The bytes of clients that have not authenticated yet (see the class comment). */
    private final ByteBudget unauthenticatedBytes;
    /** The connections holding {@link #unauthenticatedBytes}: the largest are closed when it is exceeded. */
    private final UnauthenticatedHolders holders;
    private final Timer timer;
    private final long receiveTimeoutMs;
    private final Gate gate;
    private ChannelHandlerContext ctx;
    private ByteBuf cumulation;
    /** Bytes of {@link #cumulation} counted in {@link #requestBytes}. */
    private long counted;
    /** Bytes of {@link #cumulation} counted in {@link #unauthenticatedBytes} (they come before the others). */
    private long countedUnauthenticated;
    /** {@link #countedUnauthenticated} as other threads see it ({@link UnauthenticatedHolders}). */
    private volatile long unauthenticatedView;
    /** When the first byte of the incomplete head frame arrived (timer ms), or -1. */
    private long frameStartMs = -1;
    private Timer.Scheduled deadline;
    private boolean failed;
    private boolean resumeScheduled;
    /** True while {@link #budgetWake} waits in the request budget's queue. */
    private boolean awaitingBudget;
    private boolean decoding;
    private final Runnable resumeTask = this::resumeNow;
    private final Runnable budgetResumeTask = this::resumeForBudget;
    private final Runnable budgetWake = this::onBudgetReleased;

    RequestFrameDecoder(int maxFrame, ByteBudget requestBytes, ByteBudget unauthenticatedBytes,
            UnauthenticatedHolders holders, Timer timer, long receiveTimeoutMs, Gate gate) {
        this.maxFrame = maxFrame;
        this.requestBytes = requestBytes;
        this.unauthenticatedBytes = unauthenticatedBytes;
        this.holders = holders;
        this.timer = timer;
        this.receiveTimeoutMs = receiveTimeoutMs;
        this.gate = gate;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        if (budget().exceeded()) {
            pauseForBudget(); // before the first read: a crowd of new connections must not overshoot the budget
        }
        super.channelActive(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        if (failed) {
            in.release();
            return;
        }
        cumulate(in);
        decode();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        discard();
        super.channelInactive(ctx);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        discard();
    }

    /** Stops reading for good (a bad request, or shutdown); what is buffered is never emitted. */
    void stop() {
        failed = true;
        ctx.channel().config().setAutoRead(false);
        discard();
    }

    /**
     * Emits the frames held while the connection did not take them and reads on, unless the
     * connection still does not take them. Runs as a task of its own on the event loop, never
     * inside the caller's handler (which may be in the middle of a read).
     */
    void resume() {
        if (!resumeScheduled && !failed) {
            resumeScheduled = true;
            try {
                ctx.executor().execute(resumeTask);
            } catch (RejectedExecutionException e) {
                resumeScheduled = false; // shutting down: the channel is closed with its loop
            }
        }
    }

    private void resumeForBudget() {
        awaitingBudget = false; // the budget's queue let go of budgetWake
        resumeNow();
    }

    private void resumeNow() {
        resumeScheduled = false;
        if (failed || !ctx.channel().isActive()) {
            return;
        }
        int emitted = decode();
        if (emitted > 0) {
            ctx.fireChannelReadComplete();
        }
    }

    /** Called on whichever thread released budget bytes: hands the retry to the event loop. */
    private void onBudgetReleased() {
        try {
            ctx.executor().execute(budgetResumeTask);
        } catch (RejectedExecutionException e) {
            // shutting down: the channel is closed with its loop
        }
    }

    /** The budget this connection's bytes count against now. */
    private ByteBudget budget() {
        return gate.authenticated() ? requestBytes : unauthenticatedBytes;
    }

    private void cumulate(ByteBuf in) {
        int arrived = in.readableBytes();
        if (gate.authenticated()) {
            requestBytes.add(arrived);
            counted += arrived;
        } else {
            unauthenticatedBytes.add(arrived);
            if (countedUnauthenticated == 0) {
                holders.holding(this);
            }
            countedUnauthenticated += arrived;
            unauthenticatedView = countedUnauthenticated;
        }
        if (cumulation == null) {
            cumulation = in;
            return;
        }
        if (!cumulation.isReadable()) {
            cumulation.release();
            cumulation = in;
            return;
        }
        int needed = in.readableBytes();
        if (cumulation.refCnt() == 1 && !cumulation.isReadOnly()) {
            cumulation.discardSomeReadBytes();
            cumulation.ensureWritable(needed); // grows with the bytes that arrived, never with a claimed size
            cumulation.writeBytes(in);
        } else {
            // slices of emitted frames still share the buffer: move what is left to a new one
            int min = cumulation.readableBytes() + needed;
            ByteBuf bigger = ctx.alloc().ioBuffer(ctx.alloc().calculateNewCapacity(min, Integer.MAX_VALUE));
            bigger.writeBytes(cumulation);
            bigger.writeBytes(in);
            cumulation.release();
            cumulation = bigger;
        }
        in.release();
    }

    /** Emits what the connection takes; returns how many frames. */
    private int decode() {
        if (decoding) {
            return 0; // a frame's handler resumed us: the outer loop goes on
        }
        decoding = true;
        int emitted = 0;
        try {
            while (!failed && cumulation != null && cumulation.readableBytes() >= SIZE_PREFIX) {
                int start = cumulation.readerIndex();
                int size = cumulation.getInt(start);
                int max = gate.maxFrame(maxFrame);
                if (size < gate.minFrame() || size > max) {
                    String reason = size < 0 ? "negative request size " + size
                            : size <= max ? "request size " + size + " is smaller than a request header"
                            : max < maxFrame ? "request size " + size + " exceeds sasl.server.max.receive.size=" + max
                                    + " before SASL authentication"
                            : "request size " + size + " exceeds socket.request.max.bytes=" + maxFrame;
                    fail(reason);
                    return emitted;
                }
                if (cumulation.readableBytes() - SIZE_PREFIX < size) {
                    break;
                }
                if (!gate.acceptsFrame()) {
                    pause();
                    return emitted;
                }
                ByteBuf frame = cumulation.retainedSlice(start + SIZE_PREFIX, size);
                cumulation.readerIndex(start + SIZE_PREFIX + size);
                handOn(SIZE_PREFIX + size);
                frameStartMs = -1;
                emitted++;
                ctx.fireChannelRead(frame);
            }
            if (cumulation != null && !cumulation.isReadable()) {
                cumulation.release();
                cumulation = null;
            }
            if (!failed) {
                if (cumulation != null) {
                    startReceiveClock();
                }
                if (budget().exceeded()) {
                    pauseForBudget();
                } else if (!ctx.channel().config().isAutoRead()) {
                    ctx.channel().config().setAutoRead(true);
                }
            }
            return emitted;
        } finally {
            decoding = false;
        }
    }

    /**
     * A frame of {@code bytes} (with its size prefix) leaves the cumulation: the request owns its
     * bytes now, in the broker-wide budget (see Connection#requestBytesReleased), also those
     * counted before authentication.
     */
    private void handOn(int bytes) {
        long early = Math.min(countedUnauthenticated, bytes);
        if (early > 0) {
            unauthenticatedBytes.release(early);
            requestBytes.add(early);
            countedUnauthenticated -= early;
            unauthenticatedView = countedUnauthenticated;
            if (countedUnauthenticated == 0) {
                holders.released(this);
            }
        }
        counted -= bytes - early;
    }

    private void pause() {
        frameStartMs = -1; // held frames are complete: nothing is late
        if (ctx.channel().config().isAutoRead()) {
            gate.paused();
            ctx.channel().config().setAutoRead(false);
        }
    }

    /**
     * Stops reading until the request budget has room; an incomplete frame's deadline keeps
     * running. Before authentication, the connections holding the most of the budget are closed
     * first (this one, if it holds the most), so the wait is short.
     */
    private void pauseForBudget() {
        if (!gate.authenticated()) {
            holders.makeRoom();
        }
        if (ctx.channel().config().isAutoRead()) {
            gate.paused();
            ctx.channel().config().setAutoRead(false);
        }
        if (!awaitingBudget) {
            awaitingBudget = true;
            budget().awaitRelease(budgetWake);
        }
    }

    /** A frame is incomplete: its remaining bytes are due within the receive timeout. */
    private void startReceiveClock() {
        if (receiveTimeoutMs <= 0 || frameStartMs >= 0) {
            return;
        }
        frameStartMs = timer.nowMs();
        if (deadline == null) {
            arm(receiveTimeoutMs);
        }
    }

    private void arm(long delayMs) {
        deadline = timer.scheduleOn(ctx.executor(), delayMs, this::checkDeadline);
    }

    private void checkDeadline() {
        deadline = null;
        if (failed || frameStartMs < 0 || !ctx.channel().isActive()) {
            return;
        }
        long waited = timer.nowMs() - frameStartMs;
        if (waited >= receiveTimeoutMs) {
            fail("request not received within brook.request.receive.timeout.ms=" + receiveTimeoutMs + " ("
                    + (cumulation == null ? 0 : cumulation.readableBytes()) + " bytes of it arrived)");
        } else {
            arm(receiveTimeoutMs - waited);
        }
    }

    @Override
    public long unauthenticatedBytes() {
        return unauthenticatedView;
    }

    @Override
    public void evict(String reason, boolean log) {
        try {
            ctx.executor().execute(() -> {
                if (!failed) {
                    if (log) {
                        fail(reason);
                    } else {
                        stop();
                        ctx.close();
                    }
                }
                holders.released(this); // also when it had closed already
            });
        } catch (RejectedExecutionException e) {
            holders.released(this); // shutting down: the channel is closed with its loop
        }
    }

    private void fail(String reason) {
        LOG.warn("Closing connection from {}: {}", ctx.channel().remoteAddress(), reason);
        stop();
        ctx.close();
    }

    private void discard() {
        if (cumulation != null) {
            cumulation.release();
            cumulation = null;
        }
        if (counted != 0) {
            requestBytes.release(counted);
            counted = 0;
        }
        if (countedUnauthenticated != 0) {
            unauthenticatedBytes.release(countedUnauthenticated);
            countedUnauthenticated = 0;
            unauthenticatedView = 0;
        }
        holders.released(this);
        frameStartMs = -1;
        Timer.Scheduled d = deadline;
        if (d != null) {
            d.cancel();
            deadline = null;
        }
    }
}
