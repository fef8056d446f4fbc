package io.brook.server.network;

import io.brook.server.security.AuthenticationFailure;
import io.brook.server.security.BrokerSecurity;
import io.brook.server.security.Session;
import io.brook.server.time.Timer;
import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.ApiRequest;
import io.brook.wire.protocol.Errors;
import io.brook.wire.protocol.LogSafe;
import io.brook.wire.protocol.ProtocolDecodeException;
import io.brook.wire.protocol.ProtocolReader;
import io.brook.wire.protocol.RequestHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.concurrent.Promise;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
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
 * <p>Inline requests: a request whose handler says it {@linkplain ApiHandler#runsOnEventLoop never
 * blocks} (Fetch, Produce of uncompressed batches) runs right here on the event loop when the serial executor is
 * idle, i.e. every earlier request of the connection has been handed to its handler already —
 * so handlers still see requests in order. That saves the hand-off to the pool and the one back
 * (two thread wake-ups, each a futex or eventfd round trip) per request. When an earlier request
 * is still queued or running on the pool, the request queues behind it as before. Responses
 * completed during a read are flushed once, when the read ends ({@link #channelReadComplete}),
 * so pipelined requests answered inline share one write.
 *
 * <p>Back-pressure: the {@link RequestFrameDecoder} asks {@link #acceptsFrame} before each frame
 * and holds the frames (and stops reading the socket) while it says no. It says no while
 * {@code brook.connection.max.inflight.requests} requests, or requests of
 * {@code brook.connection.max.inflight.bytes}, are unanswered; while the answers the client has
 * not read yet pass the channel's high water mark (every byte counts, those sent from files
 * too: see {@link ResponseSizeEstimator}); and, while the broker-wide
 * {@code brook.queued.max.response.bytes} is exceeded, as long as any answer of this connection
 * is still queued in memory. So a client that pipelines without reading gets at most a few
 * answers queued, and the broker never queues without bound.
 *
 * <p>Memory held for unread answers: what each flush leaves queued (in buffers, not file
 * regions) is added to the broker-wide response budget; an empty marker written behind it tells
 * when the socket took it all, and the bytes are given back. A flush that leaves nothing queued
 * (the usual case) touches no shared counter.
 *
 * <p>Closing: when the channel closes, every request still in flight is
 * {@linkplain RequestContext#abandon abandoned}: its delayed work (a waiting fetch) is cancelled
 * and its bytes are given back at once; requests still queued for the I/O pool are skipped.
 *
 * <p>Bad input closes only this connection, with one log line: an unknown API key, an
 * unsupported version (except ApiVersions, answered with UNSUPPORTED_VERSION per KIP-511), or a
 * body that fails to decode.
 */
final class Connection extends ChannelInboundHandlerAdapter implements RequestFrameDecoder.Gate {

    private static final Logger LOG = LoggerFactory.getLogger(Connection.class);

    /** The security state of connections made without a listener (tests that feed frames directly). */
    private static final Session PLAINTEXT_SESSION = BrokerSecurity.plaintext();

    private final ApiTable apis;
    private final Session session;
    private final SerialExecutor serial;
    private final NetworkLimits limits;

    private final ArrayDeque<RequestContext> inFlight = new ArrayDeque<>();
    private long inflightBytes;
    private boolean closing;
    private boolean shuttingDown;
    /** Set when a bad request was read: nothing more is read, the close follows the last answer. */
    private String closeReason;
    private Promise<Void> drained;
    private ChannelHandlerContext ctx;
    private Channel channel;
    private RequestFrameDecoder frames;
    /** On a TLS connection, the file bytes of answers not yet read; null otherwise. */
    private FileSliceChunker fileSlices;
    private final Runnable drainTask = this::drainSafely;
    private final LongAdder readPauses;
    private final boolean inlineRequests;
    private final Executor ioPool;
    /** True from the first frame of a read until {@link #channelReadComplete}: flushes wait for it. */
    private boolean reading;
    private boolean flushPending;
    /** Buffer bytes of answers written since the last flush. */
    private long unflushedBytes;
    /** Buffer bytes of answers flushed but still queued, as counted in the response budget. */
    private long queuedBytes;
    /** Of {@link #queuedBytes}, those written before the outstanding marker (0: no marker). */
    private long markedBytes;
    private final ChannelFutureListener markerDone = f -> onMarkerWritten();
    private final RequestObserver observer;
    /** While muted (a quota throttle), nothing more is read. */
    private final ThrottleMute mute = new ThrottleMute(() -> {
        if (!closing) {
            maybeResumeReading();
        }
    });
    /** The broker's fairness between client ids while saturated (null: off), and this loop's probe of it. */
    private FairShare fairShare;
    private FairShare.Probe saturationProbe;
    private InlineRequestHook inlineHook = InlineRequestHook.NONE;

    Connection(ApiTable apis, Executor ioPool, NetworkLimits limits, LongAdder readPauses, boolean inlineRequests) {
        this(apis, ioPool, limits, readPauses, inlineRequests, RequestObserver.NONE, PLAINTEXT_SESSION);
    }

    Connection(ApiTable apis, Executor ioPool, NetworkLimits limits, LongAdder readPauses, boolean inlineRequests,
            RequestObserver observer) {
        this(apis, ioPool, limits, readPauses, inlineRequests, observer, PLAINTEXT_SESSION);
    }

    Connection(ApiTable apis, Executor ioPool, NetworkLimits limits, LongAdder readPauses, boolean inlineRequests,
            RequestObserver observer, Session session) {
        this.session = session;
        this.apis = apis;
        this.observer = observer;
        this.ioPool = ioPool;
        this.serial = new SerialExecutor(ioPool);
        this.limits = limits;
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

    /** Measures throttles ({@link RequestContext#throttle}) on {@code timer}; call before the channel is active. */
    void throttleTimer(Timer timer) {
        mute.timer(timer);
    }

    /** Takes part in {@code share} (null: no fairness policy); call before the channel is registered. */
    void fairShare(FairShare share) {
        this.fairShare = share;
    }

    /** Runs {@code hook} before each inline request of this connection; call before it is registered. */
    void inlineHook(InlineRequestHook hook) {
        this.inlineHook = hook;
    }

    /**
     * Counts an answered request of {@code clientId} (any thread), {@code pipelined} when it arrived
     * behind an unanswered one; the throttle in ms its fair share asks for.
     */
    int fairShareThrottle(String clientId, boolean pipelined) {
        FairShare s = fairShare;
        return s == null ? 0 : s.recorded(clientId, pipelined);
    }

    Session session() {
        return session;
    }

    SocketAddress remoteAddress() {
        Channel c = channel;
        return c == null ? null : c.remoteAddress();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.channel = ctx.channel();
        this.frames = ctx.pipeline().get(RequestFrameDecoder.class);
        this.fileSlices = ctx.pipeline().get(FileSliceChunker.class);
        if (fairShare != null) {
            this.saturationProbe = fairShare.probe(channel.eventLoop());
        }
    }

    @Override
    public boolean acceptsFrame() {
        if (closing || closeReason != null || shuttingDown || mute.muted()) {
            return false;
        }
        if (inFlight.size() >= limits.maxInflightRequests() || inflightBytes >= limits.maxInflightBytes()) {
            return false;
        }
        if (!channel.isWritable() || fileSlices != null && fileSlices.holding()) {
            return false;
        }
        return (queuedBytes == 0 && unflushedBytes == 0) || !limits.responseBytes().exceeded();
    }

    @Override
    public void paused() {
        readPauses.increment();
    }

    @Override
    public int maxFrame(int configured) {
        return session.maxFrame(configured);
    }

    @Override
    public boolean authenticated() {
        return session.authenticated();
    }

    @Override
    public int minFrame() {
        return session.expectsRawTokens() ? 0 : RequestFrameDecoder.MIN_FRAME;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf frame = (ByteBuf) msg;
        int frameSize = frame.readableBytes();
        if (closing || closeReason != null) {
            releaseFrame(frame, frameSize);
            return;
        }
        if (session.expectsRawTokens()) {
            rawSaslToken(frame, frameSize);
            return;
        }
        ByteBuffer buf = frame.nioBuffer();
        RequestHeader header;
        try {
            header = RequestHeader.read(buf);
        } catch (RuntimeException e) {
            releaseFrame(frame, frameSize);
            closeAfterAnswered("unreadable request header: " + e.getMessage());
            return;
        }
        ApiTable.Entry<?> entry = apis.entry(header.apiKeyId());
        if (entry == null) {
            releaseFrame(frame, frameSize);
            ApiKey known = header.apiKey();
            closeAfterAnswered("unsupported API key " + header.apiKeyId()
                    + (known != null ? " (" + known.displayName() + ")" : ""));
            return;
        }
        // as in Kafka: in the middle of a SASL exchange (after a v1 handshake) such a request gets its
        // own error response (ILLEGAL_SASL_STATE) before the close; at any other time only the close
        boolean midExchange = false;
        if ((!session.authenticated() || session.expired()) && !Session.allowedBeforeAuthentication(entry.key())) {
            midExchange = !session.authenticated() && session.awaitingAuthenticate();
            if (!midExchange) {
                releaseFrame(frame, frameSize);
                closeAfterAnswered(entry.key().displayName() + (session.authenticated()
                        ? " request after the SASL authentication expired (connections.max.reauth.ms or the token's expiry)"
                        : " request before SASL authentication completed"));
                return;
            }
        }
        short version = header.apiVersion();
        ApiRequest body;
        short responseVersion = version;
        long decoded = 0;
        if (!entry.accepts(version)) {
            if (entry.key() == ApiKey.API_VERSIONS && version > entry.advertisedMax()) {
                // KIP-511: do not parse the body; answer with a v0 body that lists our range.
                body = null;
                responseVersion = 0;
            } else {
                releaseFrame(frame, frameSize);
                closeAfterAnswered("unsupported version " + version + " of " + entry.key().displayName() + " (accepted "
                        + entry.acceptFrom() + ".." + entry.advertisedMax() + ")");
                return;
            }
        } else {
            try {
                ProtocolReader in = new ProtocolReader(buf, limits.maxDecodedBytes());
                body = entry.read(in, buf, version);
                decoded = in.heapEstimate();
            } catch (ProtocolDecodeException e) {
                releaseFrame(frame, frameSize);
                closeAfterAnswered("malformed " + entry.key().displayName() + " v" + version + " request: " + e.getMessage());
                return;
            } catch (RuntimeException | OutOfMemoryError | StackOverflowError e) {
                // (the heap running out while decoding one huge request is that request's failure:
                // escaping, it would leave its frame and its part of the request budget held)
                releaseFrame(frame, frameSize);
                closeAfterAnswered("undecodable " + entry.key().displayName() + " v" + version + " request: " + e);
                return;
            }
        }
        // the decoded form's heap counts in the request budget too, until the frame is released
        limits.requestBytes().add(decoded);
        RequestContext rc = new RequestContext(this, header, entry, body, responseVersion, frame, frameSize, decoded);
        if (reading || !inFlight.isEmpty()) {
            rc.pipelined(); // sent before the client saw the answer to an earlier request
        }
        inFlight.add(rc);
        inflightBytes += frameSize;
        reading = true;
        if (saturationProbe != null) {
            saturationProbe.poke();
        }
        if (midExchange) {
            rc.respondThenClose(rc.errorResponse(Errors.ILLEGAL_SASL_STATE), entry.key().displayName()
                    + " request before SASL authentication completed");
        } else if (body == null) {
            rc.respond(ApiTable.unsupportedApiVersions(entry));
        } else if (inlineRequests && entry.runsOnEventLoop(body) && serial.isIdle()) {
            inlineHook.beforeRun(ctx.executor());
            rc.run();
        } else {
            // the pool's run holds a reference of its own: an abandon (the channel closed) must
            // not free the frame under a handler that is still reading it
            ByteBuf own = frame.retain();
            serial.execute(() -> rc.runQueued(own));
        }
    }

    /**
     * A raw SASL token, as clients send them after a v0 SaslHandshake: answered with the
     * server's token in a frame of its own (size prefix, no header), or the connection closes.
     * Cheap enough for the event loop: PLAIN compares a password, SCRAM computes a few HMACs.
     */
    private void rawSaslToken(ByteBuf frame, int frameSize) {
        byte[] token = new byte[frameSize];
        frame.readBytes(token);
        releaseFrame(frame, frameSize);
        if (!inFlight.isEmpty()) {
            closeAfterAnswered("SASL token while requests are in flight");
            return;
        }
        byte[] answer;
        try {
            answer = session.authenticate(token);
        } catch (AuthenticationFailure e) {
            LOG.info("Failed authentication with {} ({}) on listener {}", channel.remoteAddress(),
                    LogSafe.escape(e.getMessage()), session.listenerName());
            // nothing more is read; the close waits connection.failed.authentication.delay.ms, as in Kafka
            closeReason = RequestContext.FAILED_AUTHENTICATION;
            stopFrames();
            byte[] challenge = session.rawFailureToken();
            channel.eventLoop().schedule(() -> {
                if (challenge != null) {
                    writeRawToken(challenge);
                }
                closeNow(RequestContext.FAILED_AUTHENTICATION);
            }, session.failedAuthenticationDelayMs(), java.util.concurrent.TimeUnit.MILLISECONDS);
            return;
        }
        writeRawToken(answer);
    }

    private void writeRawToken(byte[] token) {
        ctx.writeAndFlush(ctx.alloc().ioBuffer(4 + token.length).writeInt(token.length).writeBytes(token),
                ctx.voidPromise());
    }

    /** Gives a frame's bytes back: to the allocator and to the broker-wide request budget. */
    private void releaseFrame(ByteBuf frame, int frameSize) {
        frame.release();
        requestBytesReleased(frameSize, 0);
    }

    /**
     * A request's frame was released (any thread): its bytes and size prefix leave the request
     * budget, and so does the heap estimate of its decoded form.
     */
    void requestBytesReleased(int frameSize, long decoded) {
        limits.requestBytes().release(frameSize + RequestFrameDecoder.SIZE_PREFIX + decoded);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        reading = false;
        if (flushPending) {
            flushPending = false;
            flush();
        }
        ctx.fireChannelReadComplete();
    }

    /**
     * Runs {@code complete} (which marks a context done and calls {@link #completed}) on the event
     * loop {@code delayNanos} from now: an answer the fault hooks delay. Nothing when the broker
     * shut the loop down meanwhile.
     */
    void completedAfter(long delayNanos, Runnable complete) {
        try {
            channel.eventLoop().schedule(complete, delayNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            // the broker is shut down and the connection closed: nobody is left to answer
        }
    }

    /** Called by a context on completion, from any thread. */
    void completed() {
        Channel c = channel;
        if (c.eventLoop().inEventLoop()) {
            drainSafely();
        } else {
            try {
                c.eventLoop().execute(drainTask);
            } catch (RejectedExecutionException e) {
                // the broker is shut down and the connection closed: nobody is left to answer
            }
        }
    }

    /**
     * Drains on behalf of a handler that completed inline: whatever goes wrong while writing is
     * this connection's problem, never the handler's (which would otherwise answer twice).
     */
    private void drainSafely() {
        try {
            drain();
        } catch (Throwable t) {
            LOG.error("Closing connection from {}: writing answers failed", channel.remoteAddress(), t);
            closeNow("writing answers failed: " + t);
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
            if (head.throttleMs() > 0) {
                int covered = mute.mute(head.throttleMs(), channel.eventLoop());
                if (covered > 0 && head.response() != null) {
                    head.response().lowerThrottleTimeMs(covered); // the client waits that out already
                }
            }
            switch (head.outcome()) {
                case NO_RESPONSE -> {
                    long now = System.nanoTime();
                    head.observed(observer, now, now);
                }
                case ABANDONED -> { }
                case CLOSE -> {
                    if (wrote) {
                        flush();
                        wrote = false;
                    }
                    closeNow(head.closeReason());
                }
                case RESPONSE -> {
                    long writing = System.nanoTime();
                    wrote |= write(head);
                    head.observed(observer, writing, System.nanoTime());
                    if (head.closeReason() != null) {
                        // answered, then closed (a failed SASL authentication)
                        flush();
                        wrote = false;
                        closeNow(head.closeReason());
                    }
                }
            }
        }
        boolean last = inFlight.isEmpty() && (closeReason != null || drained != null);
        if (wrote) {
            if (reading && !last) {
                flushPending = true; // channelReadComplete flushes the answers of the whole read at once
            } else {
                flushPending = false;
                flush();
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
        if (frames != null && !channel.config().isAutoRead() && acceptsFrame()) {
            frames.resume();
        }
    }

    /**
     * Flushes, and settles the response budget: when the socket took everything (the usual
     * case) nothing is counted; otherwise what is left queued is counted until a marker written
     * behind it completes.
     */
    private void flush() {
        ctx.flush();
        ChannelOutboundBuffer out = channel.unsafe().outboundBuffer();
        long pending = out == null ? 0 : out.totalPendingWriteBytes();
        if (pending == 0) {
            if (queuedBytes != 0) {
                limits.responseBytes().release(queuedBytes);
                queuedBytes = 0;
                markedBytes = 0;
            }
            unflushedBytes = 0;
            return;
        }
        // still queued: at most what was written since nothing was queued, at most all that is pending
        long queued = Math.min(queuedBytes + unflushedBytes, pending);
        unflushedBytes = 0;
        limits.responseBytes().add(queued - queuedBytes);
        queuedBytes = queued;
        if (markedBytes == 0 && queued > 0) {
            markedBytes = queued;
            ctx.writeAndFlush(Unpooled.EMPTY_BUFFER, ctx.newPromise().addListener(markerDone));
        } else {
            markedBytes = Math.min(markedBytes, queued);
        }
    }

    /** Everything written before the marker reached the socket: its bytes are no longer held. */
    private void onMarkerWritten() {
        long done = markedBytes;
        markedBytes = 0;
        if (done == 0) {
            return;
        }
        limits.responseBytes().release(done);
        queuedBytes -= done;
        if (queuedBytes > 0) {
            if (channel.isActive()) {
                markedBytes = queuedBytes;
                ctx.writeAndFlush(Unpooled.EMPTY_BUFFER, ctx.newPromise().addListener(markerDone));
            }
        }
        if (!closing) {
            maybeResumeReading();
        }
    }

    /**
     * A client that sends requests but does not read the answers fills our outbound buffer; once
     * it passes the high water mark the frame decoder holds further requests (see
     * {@link #acceptsFrame}); reading resumes when it drained below the low water mark.
     */
    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        if (channel.isWritable()) {
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
        } catch (RuntimeException | OutOfMemoryError e) {
            // (an OutOfMemoryError here is the direct-memory limit refusing a buffer: not fatal)
            LOG.error("Could not encode {} v{} response for {}", key.displayName(), version, channel.remoteAddress(), e);
            try {
                parts = ResponseEncoder.encode(ctx.alloc(), correlationId, headerVersion,
                        rc.errorResponse(Errors.UNKNOWN_SERVER_ERROR), version);
            } catch (RuntimeException | OutOfMemoryError e2) {
                closeNow("internal error encoding a " + key.displayName() + " response");
                return false;
            }
        }
        for (Object part : parts) {
            if (part instanceof ByteBuf b) {
                unflushedBytes += b.readableBytes();
            }
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
        // nobody is left to answer: delayed work is cancelled and request bytes given back now
        RequestContext rc;
        while ((rc = inFlight.poll()) != null) {
            rc.abandon();
        }
        inflightBytes = 0;
        if (queuedBytes != 0) {
            limits.responseBytes().release(queuedBytes);
            queuedBytes = 0;
            markedBytes = 0;
        }
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (!closing) {
            if (cause instanceof IOException || cause.getCause() instanceof javax.net.ssl.SSLException) {
                // (a failed TLS handshake was logged by the TLS pipeline, without the bytes received)
                // the client went away (reset, broken pipe): its business, as in Kafka's logs at debug
                LOG.debug("Closing connection from {}: {}", channel.remoteAddress(), LogSafe.escape(cause));
            } else {
                LOG.warn("Closing connection from {}: {}", channel.remoteAddress(), LogSafe.escape(cause));
            }
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
        stopFrames();
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
        stopFrames();
        if (inFlight.isEmpty()) {
            closeNow(reason);
        }
    }

    /** Nothing more is read or handed on (the decoder is absent only in tests that feed frames directly). */
    private void stopFrames() {
        if (frames != null) {
            frames.stop();
        }
    }

    private void closeNow(String reason) {
        if (flushPending) {
            flushPending = false;
            ctx.flush();
        }
        if (!closing && !reason.equals(RequestContext.FAILED_AUTHENTICATION)) { // that was logged at INFO
            LOG.warn("Closing connection from {}: {}", channel.remoteAddress(), LogSafe.escape(reason));
        }
        closing = true;
        stopFrames();
        ctx.close();
    }
}
