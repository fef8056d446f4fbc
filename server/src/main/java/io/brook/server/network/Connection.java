package io.brook.server.network;

import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.ApiRequest;
import io.brook.wire.protocol.Errors;
import io.brook.wire.protocol.LogSafe;
import io.brook.wire.protocol.ProtocolDecodeException;
import io.brook.wire.protocol.RequestHeader;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.concurrent.Promise;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection: decodes request headers and bodies, dispatches to the {@link ApiTable},
 * and writes responses back strictly in request order.
 *
 * <p>Concurrency: everything here except {@link #completed()} runs on the channel's event loop.
 * Each request gets a {@link RequestContext} appended to {@link #inFlight} when its frame is read;
 * handlers run on the I/O pool through a per-connection {@link SerialExecutor} (request order),
 * and may complete from any thread. Completion only schedules {@link #drain()} on the event loop,
 * which writes every completed context at the head of the queue and stops at the first one still
 * running — a later response that finished first waits there (the reorder buffer), while the
 * requests behind it keep being processed.
 *
 * <p>Inline requests: a handler that {@linkplain ApiHandler#runsOnEventLoop never blocks}
 * (Produce, Fetch) runs right here on the event loop when the serial executor is
 * idle, i.e. every earlier request of the connection has been handed to its handler already —
 * so handlers still see requests in order. That saves the hand-off to the pool and the one back
 * (two thread wake-ups, each a futex or eventfd round trip) per request. When an earlier request
 * is still queued or running on the pool, the request queues behind it as before. Responses
 * completed during a read are flushed once, when the read ends ({@link #channelReadComplete}),
 * so pipelined requests answered inline share one write.
 *
 * <p>Back-pressure: bytes of requests read but not yet answered are counted; above
 * {@code brook.connection.max.inflight.bytes} the channel stops reading (autoRead off) until
 * responses drain. Likewise while the outbound buffer is above its high water mark (a client
 * that does not read its answers). Either way the broker never queues without bound.
 *
 * <p>Bad input closes only this connection, with one log line: an unknown API key, an
 * unsupported version (except ApiVersions, answered with UNSUPPORTED_VERSION per KIP-511), or a
 * body that fails to decode.
 */
final class Connection extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(Connection.class);

    private final ApiTable apis;
    private final SerialExecutor serial;
    private final long maxInflightBytes;

    private final ArrayDeque<RequestContext> inFlight = new ArrayDeque<>();
    private long inflightBytes;
    private boolean closing;
    private boolean shuttingDown;
    /** Set when a bad request was read: nothing more is read, the close follows the last answer. */
    private String closeReason;
    private Promise<Void> drained;
    private ChannelHandlerContext ctx;
    private Channel channel;
    private final Runnable drainTask = this::drain;
    private final LongAdder readPauses;
    private final boolean inlineRequests;
    private final Executor ioPool;
    /** True from the first frame of a read until {@link #channelReadComplete}: flushes wait for it. */
    private boolean reading;
    private boolean flushPending;

    Connection(ApiTable apis, Executor ioPool, long maxInflightBytes, LongAdder readPauses, boolean inlineRequests) {
        this.apis = apis;
        this.ioPool = ioPool;
        this.serial = new SerialExecutor(ioPool);
        this.maxInflightBytes = maxInflightBytes;
        this.readPauses = readPauses;
        this.inlineRequests = inlineRequests;
    }

    /**
     * Where a handler continues work that must not block, after its first pass (a waiting fetch's
     * re-checks): the event loop when inline requests are on — answering there needs no further
     * hand-off — else the I/O pool.
     */
    Executor nonBlockingExecutor() {
        return inlineRequests ? channel.eventLoop() : ioPool;
    }

    ApiTable apis() {
        return apis;
    }

    SocketAddress remoteAddress() {
        Channel c = channel;
        return c == null ? null : c.remoteAddress();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.channel = ctx.channel();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf frame = (ByteBuf) msg;
        if (closing || closeReason != null) {
            frame.release();
            return;
        }
        int frameSize = frame.readableBytes();
        ByteBuffer buf = frame.nioBuffer();
        RequestHeader header;
        try {
            header = RequestHeader.read(buf);
        } catch (RuntimeException e) {
            frame.release();
            closeAfterAnswered("unreadable request header: " + e.getMessage());
            return;
        }
        ApiTable.Entry<?> entry = apis.entry(header.apiKeyId());
        if (entry == null) {
            frame.release();
            ApiKey known = header.apiKey();
            closeAfterAnswered("unsupported API key " + header.apiKeyId()
                    + (known != null ? " (" + known.displayName() + ")" : ""));
            return;
        }
        short version = header.apiVersion();
        ApiRequest body;
        short responseVersion = version;
        if (!entry.accepts(version)) {
            if (entry.key() == ApiKey.API_VERSIONS && version > entry.advertisedMax()) {
                // KIP-511: do not parse the body; answer with a v0 body that lists our range.
                body = null;
                responseVersion = 0;
            } else {
                frame.release();
                closeAfterAnswered("unsupported version " + version + " of " + entry.key().displayName() + " (accepted "
                        + entry.acceptFrom() + ".." + entry.advertisedMax() + ")");
                return;
            }
        } else {
            try {
                body = entry.reader.read(buf, version);
            } catch (ProtocolDecodeException e) {
                frame.release();
                closeAfterAnswered("malformed " + entry.key().displayName() + " v" + version + " request: " + e.getMessage());
                return;
            } catch (RuntimeException e) {
                frame.release();
                closeAfterAnswered("undecodable " + entry.key().displayName() + " v" + version + " request: " + e);
                return;
            }
        }
        RequestContext rc = new RequestContext(this, header, entry, body, responseVersion, frame, frameSize);
        inFlight.add(rc);
        inflightBytes += frameSize;
        if (inflightBytes >= maxInflightBytes && channel.config().isAutoRead()) {
            readPauses.increment();
            channel.config().setAutoRead(false);
        }
        reading = true;
        if (body == null) {
            rc.respond(ApiTable.unsupportedApiVersions(entry));
        } else if (inlineRequests && entry.handler.runsOnEventLoop() && serial.isIdle()) {
            rc.run();
        } else {
            serial.execute(rc::run);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        reading = false;
        if (flushPending) {
            flushPending = false;
            ctx.flush();
        }
        ctx.fireChannelReadComplete();
    }

    /** Called by a context on completion, from any thread. */
    void completed() {
        Channel c = channel;
        if (c.eventLoop().inEventLoop()) {
            drain();
        } else {
            try {
                c.eventLoop().execute(drainTask);
            } catch (RejectedExecutionException e) {
                // the broker is shut down and the connection closed: nobody is left to answer
            }
        }
    }

    private void drain() {
        boolean wrote = false;
        RequestContext head;
        while ((head = inFlight.peek()) != null && head.isDone()) {
            inFlight.poll();
            inflightBytes -= head.frameSize();
            if (closing) {
                continue;
            }
            switch (head.outcome()) {
                case NO_RESPONSE -> { }
                case CLOSE -> {
                    if (wrote) {
                        ctx.flush();
                        wrote = false;
                    }
                    closeNow(head.closeReason());
                }
                case RESPONSE -> wrote |= write(head);
            }
        }
        boolean last = inFlight.isEmpty() && (closeReason != null || drained != null);
        if (wrote) {
            if (reading && !last) {
                flushPending = true; // channelReadComplete flushes the answers of the whole read at once
            } else {
                flushPending = false;
                ctx.flush();
            }
        }
        if (closeReason != null && inFlight.isEmpty()) {
            closeNow(closeReason);
        }
        if (drained != null && (inFlight.isEmpty() || closing)) {
            drained.trySuccess(null); // what was written is flushed before the close that follows
        }
        maybeResumeReading();
    }

    private void maybeResumeReading() {
        if (!closing && !shuttingDown && closeReason == null && !channel.config().isAutoRead()
                && inflightBytes < maxInflightBytes && channel.isWritable()) {
            channel.config().setAutoRead(true);
        }
    }

    /**
     * A client that sends requests but does not read the answers fills our outbound buffer; once
     * it passes the high water mark we stop reading from it until the socket drains (file
     * regions do not count: they hold no memory).
     */
    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        if (!channel.isWritable()) {
            if (channel.config().isAutoRead()) {
                readPauses.increment();
                channel.config().setAutoRead(false);
            }
        } else {
            maybeResumeReading();
        }
        super.channelWritabilityChanged(ctx);
    }

    private boolean write(RequestContext rc) {
        ApiKey key = rc.apiKey();
        short version = rc.responseVersion();
        short headerVersion = key.responseHeaderVersion(version);
        int correlationId = rc.header().correlationId();
        List<Object> parts;
        try {
            parts = ResponseEncoder.encode(ctx.alloc(), correlationId, headerVersion, rc.response(), version);
        } catch (RuntimeException e) {
            LOG.error("Could not encode {} v{} response for {}", key.displayName(), version, channel.remoteAddress(), e);
            try {
                parts = ResponseEncoder.encode(ctx.alloc(), correlationId, headerVersion,
                        rc.errorResponse(Errors.UNKNOWN_SERVER_ERROR), version);
            } catch (RuntimeException e2) {
                closeNow("internal error encoding a " + key.displayName() + " response");
                return false;
            }
        }
        for (Object part : parts) {
            ctx.write(part, ctx.voidPromise());
        }
        return true;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof IdleStateEvent) {
            if (inFlight.isEmpty()) {
                LOG.debug("Closing idle connection from {}", channel.remoteAddress());
                closing = true;
                ctx.close();
            }
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        closing = true;
        if (drained != null) {
            drained.trySuccess(null);
        }
        // contexts still running complete later and are dropped by drain()
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (!closing) {
            LOG.warn("Closing connection from {}: {}", channel.remoteAddress(), LogSafe.escape(cause));
        }
        closing = true;
        ctx.close();
    }

    /**
     * Stops reading new requests; answers to those already read are still sent, and
     * {@code drained} succeeds once the last of them is written. Call on the event loop.
     */
    void stopReading(Promise<Void> drained) {
        shuttingDown = true;
        this.drained = drained;
        channel.config().setAutoRead(false);
        if (inFlight.isEmpty() || closing) {
            drained.trySuccess(null);
        }
    }

    /**
     * Stops reading and closes once every request read before the bad one has been answered,
     * so a client's earlier requests still get their responses.
     */
    private void closeAfterAnswered(String reason) {
        closeReason = reason;
        channel.config().setAutoRead(false);
        if (inFlight.isEmpty()) {
            closeNow(reason);
        }
    }

    private void closeNow(String reason) {
        if (flushPending) {
            flushPending = false;
            ctx.flush();
        }
        if (!closing) {
            LOG.warn("Closing connection from {}: {}", channel.remoteAddress(), LogSafe.escape(reason));
        }
        closing = true;
        channel.config().setAutoRead(false);
        ctx.close();
    }
}
