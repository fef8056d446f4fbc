package io.brook.server.cluster.interbroker;

import io.brook.server.security.InterBrokerLogin;
import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.ByteBufferWriter;
import io.brook.wire.protocol.RequestHeader;
import io.brook.wire.protocol.ResponseHeader;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import javax.net.ssl.SSLParameters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link InterBrokerClient}'s connection to one node, and the requests waiting for it (see
 * the client's comment for the rules). Every field is confined to {@link #loop}: the public-facing
 * methods hand their work to it.
 *
 * <p><b>Re-authentication</b> (KIP-368, as Kafka's clients do it): when the other node gave the
 * login a session lifetime ({@code connections.max.reauth.ms}, a token's expiry), the connection
 * logs in again on the same socket at a random point between 85 % and 95 % of it: from then on
 * no new request is sent; once the requests in flight are answered the SASL exchange runs again,
 * and the requests waiting go out after it. A failed re-authentication closes the connection, and
 * the requests waiting go to the next one.
 */
final class NodeConnection {

    private static final Logger LOG = LoggerFactory.getLogger(NodeConnection.class);
    /** The largest answer accepted (Kafka's {@code socket.request.max.bytes} default, 100 MiB). */
    static final int MAX_RESPONSE_BYTES = 100 * 1024 * 1024;

    private final int nodeId;
    private final EventLoop loop;
    private final Class<? extends Channel> channelClass;
    private final IntFunction<InetSocketAddress> endpoints;
    private final String clientId;
    private final InterBrokerSettings settings;
    /** How this node logs in to the others (PLAINTEXT: not at all), and the TLS context of a new connection (null: none). */
    private final InterBrokerLogin login;
    private final Supplier<SslContext> tls;
    private final ArrayDeque<PendingRequest<?>> queued = new ArrayDeque<>();
    private final Map<Integer, PendingRequest<?>> inFlight = new LinkedHashMap<>();
    private final CompletableFuture<Void> closedFuture = new CompletableFuture<>();
    private Channel channel;
    private boolean connecting;
    /** Connected, and logging in: only the login's own requests are sent. */
    private boolean authenticating;
    /** The session is to be renewed: no new request is sent until the ones in flight are answered and it is. */
    private boolean reauthenticationDue;
    private ScheduledFuture<?> reauthentication;
    private final AtomicLong reauthentications = new AtomicLong();
    private ScheduledFuture<?> reconnect;
    private long backoffMs;
    private long nextAttemptNanos;
    private int nextCorrelationId;
    private boolean closed;
    private volatile boolean open;

    NodeConnection(int nodeId, EventLoop loop, Class<? extends Channel> channelClass,
            IntFunction<InetSocketAddress> endpoints, String clientId, InterBrokerSettings settings,
            InterBrokerLogin login, Supplier<SslContext> tls) {
        this.login = login;
        this.tls = tls;
        this.nodeId = nodeId;
        this.loop = loop;
        this.channelClass = channelClass;
        this.endpoints = endpoints;
        this.clientId = clientId;
        this.settings = settings;
    }

    boolean isOpen() {
        return open;
    }

    /** How many times the connection re-authenticated (tests). */
    long reauthentications() {
        return reauthentications.get();
    }

    void send(PendingRequest<?> p) {
        try {
            loop.execute(() -> enqueue(p));
        } catch (RejectedExecutionException e) {
            p.fail(new InterBrokerException("The broker's event loops are shut down", e));
        }
    }

    /** Fails what waits and closes the connection; completes once closed. */
    CompletableFuture<Void> close() {
        try {
            loop.execute(() -> {
                closed = true;
                if (reconnect != null) {
                    reconnect.cancel(false);
                }
                cancelReauthentication();
                failQueued("The inter-broker client is closed");
                failInFlight("The inter-broker client is closed");
                if (channel != null) {
                    channel.close().addListener(f -> closedFuture.complete(null));
                } else {
                    closedFuture.complete(null);
                }
            });
        } catch (RejectedExecutionException e) {
            closedFuture.complete(null); // the loops are gone, and the channels with them
        }
        return closedFuture;
    }

    private void enqueue(PendingRequest<?> p) {
        if (closed) {
            p.fail(new InterBrokerException("The inter-broker client is closed"));
            return;
        }
        if (queued.size() >= settings.maxQueued()) {
            p.fail(new InterBrokerException(queued.size() + " requests already wait for node " + nodeId));
            return;
        }
        p.timeout = loop.schedule(() -> timedOut(p), settings.requestTimeoutMs(), TimeUnit.MILLISECONDS);
        queued.add(p);
        pump();
    }

    /** Sends what the in-flight bound allows, or opens the connection. */
    private void pump() {
        if (closed) {
            return;
        }
        if (channel == null) {
            if (!queued.isEmpty() && !connecting && reconnect == null) {
                connect();
            }
            return;
        }
        if (authenticating || reauthenticationDue) {
            return;
        }
        boolean wrote = false;
        while (inFlight.size() < settings.maxInFlight() && !queued.isEmpty()) {
            wrote |= write(queued.poll());
        }
        if (wrote) {
            channel.flush();
        }
    }

    private void connect() {
        long waitNanos = nextAttemptNanos - System.nanoTime();
        if (waitNanos > 0) {
            reconnect = loop.schedule(() -> {
                reconnect = null;
                pump();
            }, waitNanos, TimeUnit.NANOSECONDS);
            return;
        }
        InetSocketAddress address = endpoints.apply(nodeId);
        if (address == null) {
            failedAttempt("node " + nodeId + " has no endpoint on the inter-broker listener in the metadata image");
            return;
        }
        connecting = true;
        SslContext sslContext = tls.get();
        SslHandler[] ssl = new SslHandler[1];
        Bootstrap b = new Bootstrap().group(loop).channel(channelClass)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, settings.connectTimeoutMs())
                .option(ChannelOption.TCP_NODELAY, true)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        if (sslContext != null) {
                            ssl[0] = sslContext.newHandler(ch.alloc(), address.getHostString(), address.getPort());
                            // set either way: Netty's client contexts check the host name by default
                            SSLParameters params = ssl[0].engine().getSSLParameters();
                            params.setEndpointIdentificationAlgorithm(login.verifyHostname() ? "HTTPS" : null);
                            ssl[0].engine().setSSLParameters(params);
                            ch.pipeline().addLast(ssl[0]);
                        }
                        ch.pipeline().addLast(new ResponseFrameDecoder(MAX_RESPONSE_BYTES), new ResponseHandler());
                    }
                });
        ChannelFuture f = b.connect(address);
        f.addListener(done -> {
            connecting = false;
            Channel ch = f.channel();
            if (!done.isSuccess()) {
                failedAttempt("cannot connect to node " + nodeId + " at " + address + ": " + done.cause());
                return;
            }
            if (closed) {
                ch.close();
                return;
            }
            channel = ch;
            authenticating = true;
            ch.closeFuture().addListener(c -> disconnected(ch));
            LOG.debug("Connected to node {} at {}", nodeId, address);
            NodeLogin.run(nodeId, login, ssl[0], new LoginSender(ch))
                    .whenComplete((lifetimeMs, e) -> loop.execute(() -> loggedIn(ch, lifetimeMs, e, false)));
        });
    }

    /** The end of a login ({@code again}: a re-authentication) on channel {@code ch}. */
    private void loggedIn(Channel ch, Long lifetimeMs, Throwable e, boolean again) {
        if (e != null) {
            // what waits fails with the reason (a failed TLS handshake has closed the channel already);
            // after a failed re-authentication it waits for the next connection instead
            Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null
                    ? e.getCause() : e;
            LOG.warn("Inter-broker: {}{}", again ? "re-authentication: " : "", cause.getMessage());
            if (!again && (channel == ch || channel == null)) {
                failQueued(cause.getMessage());
            }
            ch.close();
            return;
        }
        if (channel != ch) {
            return;
        }
        authenticating = false;
        open = true;
        if (again) {
            reauthentications.incrementAndGet();
        } else {
            backoffMs = 0;
        }
        if (lifetimeMs != null && lifetimeMs > 0) {
            long afterMs = (long) (lifetimeMs * (0.85 + 0.1 * ThreadLocalRandom.current().nextDouble()));
            reauthentication = loop.schedule(() -> {
                reauthentication = null;
                if (channel == ch) {
                    reauthenticationDue = true;
                    maybeReauthenticate();
                }
            }, afterMs, TimeUnit.MILLISECONDS);
        }
        pump();
    }

    /** Runs the due re-authentication once nothing is in flight. */
    private void maybeReauthenticate() {
        Channel ch = channel;
        if (!reauthenticationDue || ch == null || authenticating || !inFlight.isEmpty()) {
            return;
        }
        reauthenticationDue = false;
        authenticating = true;
        LOG.debug("Re-authenticating the connection to node {}", nodeId);
        NodeLogin.run(nodeId, login, null, new LoginSender(ch))
                .whenComplete((lifetimeMs, e) -> loop.execute(() -> loggedIn(ch, lifetimeMs, e, true)));
    }

    private void cancelReauthentication() {
        reauthenticationDue = false;
        if (reauthentication != null) {
            reauthentication.cancel(false);
            reauthentication = null;
        }
    }

    /**
     * Sends one of the login's requests on {@code ch} at once, ahead of the queued ones (on
     * {@link #loop}); fails when {@code ch} is no longer this connection's channel (it closed while
     * the login waited for a token).
     */
    private <R extends ApiMessage> CompletableFuture<R> sendNow(Channel ch, ApiMessage request, short version,
            ResponseReader<R> reader) {
        if (closed || channel != ch) {
            return CompletableFuture.failedFuture(new InterBrokerException("the connection to node " + nodeId
                    + " closed during the login"));
        }
        CompletableFuture<R> answer = new CompletableFuture<>();
        PendingRequest<R> p = new PendingRequest<>(request, version, reader, answer);
        p.timeout = loop.schedule(() -> timedOut(p), settings.requestTimeoutMs(), TimeUnit.MILLISECONDS);
        if (write(p)) {
            channel.flush();
        }
        return answer;
    }

    /** A connection could not be opened: what waits fails (the caller retries), the next attempt backs off. */
    private void failedAttempt(String reason) {
        LOG.debug("Inter-broker: {}", reason);
        backOff();
        failQueued(reason);
    }

    private void backOff() {
        backoffMs = backoffMs == 0 ? settings.reconnectBackoffMs()
                : Math.min(backoffMs * 2, settings.reconnectBackoffMaxMs());
        nextAttemptNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(backoffMs);
    }

    private void disconnected(Channel ch) {
        if (channel != ch) {
            return;
        }
        channel = null;
        open = false;
        authenticating = false;
        cancelReauthentication();
        failInFlight("the connection to node " + nodeId + " closed before the answer");
        if (!closed) {
            backOff();
            pump();
        }
    }

    private void timedOut(PendingRequest<?> p) {
        if (queued.remove(p)) {
            p.fail(new InterBrokerException("node " + nodeId + ": " + p + " was not sent within "
                    + settings.requestTimeoutMs() + " ms"));
        } else if (p.correlationId >= 0 && inFlight.remove(p.correlationId, p)) {
            p.fail(new InterBrokerException("node " + nodeId + ": " + p + " was not answered within "
                    + settings.requestTimeoutMs() + " ms"));
            if (channel != null) {
                channel.close(); // as Kafka's client: no answer is awaited on it any more
            }
        }
    }

    /** Encodes and writes one request (not flushed); false when it could not be encoded (it failed). */
    private boolean write(PendingRequest<?> p) {
        ApiKey key = p.apiKey();
        int correlationId = nextCorrelationId;
        nextCorrelationId = nextCorrelationId == Integer.MAX_VALUE ? 0 : nextCorrelationId + 1;
        ByteBuffer frame;
        try {
            short headerVersion = key.requestHeaderVersion(p.version);
            RequestHeader header = new RequestHeader(key, p.version, correlationId, clientId);
            int size = header.size(headerVersion) + p.request.size(p.version);
            frame = ByteBuffer.allocate(4 + size);
            frame.putInt(size);
            ByteBufferWriter out = new ByteBufferWriter(frame);
            header.write(out, headerVersion);
            p.request.write(out, p.version);
            frame.flip();
        } catch (RuntimeException e) {
            p.fail(e);
            return false;
        }
        p.correlationId = correlationId;
        inFlight.put(correlationId, p);
        Channel ch = channel;
        ch.write(Unpooled.wrappedBuffer(frame)).addListener(w -> {
            if (!w.isSuccess()) {
                ch.close();
            }
        });
        return true;
    }

    private void received(Channel ch, ByteBuf frame) {
        if (channel != ch) {
            return;
        }
        ByteBuffer buf = ByteBuffer.allocate(frame.readableBytes());
        frame.readBytes(buf);
        buf.flip();
        if (buf.remaining() < 4) {
            LOG.warn("Node {} sent an answer of {} bytes: closing the connection", nodeId, buf.remaining());
            ch.close();
            return;
        }
        PendingRequest<?> p = inFlight.remove(buf.getInt(0));
        if (p == null) {
            LOG.warn("Node {} answered correlation id {}, which no request waits for: closing the connection", nodeId,
                    buf.getInt(0));
            ch.close();
            return;
        }
        try {
            ResponseHeader.read(buf, p.apiKey().responseHeaderVersion(p.version));
            p.answer(buf);
        } catch (RuntimeException e) {
            p.fail(new InterBrokerException("node " + nodeId + " sent an unreadable answer to " + p, e));
            ch.close();
            return;
        }
        if (reauthenticationDue) {
            maybeReauthenticate();
        } else {
            pump();
        }
    }

    private void failQueued(String reason) {
        List<PendingRequest<?>> all = new ArrayList<>(queued);
        queued.clear();
        all.forEach(p -> p.fail(new InterBrokerException(reason)));
    }

    private void failInFlight(String reason) {
        List<PendingRequest<?>> all = new ArrayList<>(inFlight.values());
        inFlight.clear();
        all.forEach(p -> p.fail(new InterBrokerException(reason)));
    }

    /**
     * The login's requests on one channel: sent on {@link #loop}, where a request made on another
     * thread (an OAUTHBEARER token that arrived on the HTTP client's) hops first; the answer
     * completes on the loop either way.
     */
    private final class LoginSender implements NodeLogin.Sender {
        private final Channel ch;

        LoginSender(Channel ch) {
            this.ch = ch;
        }

        @Override
        public <R extends ApiMessage> CompletableFuture<R> sendNow(ApiMessage request, short version,
                ResponseReader<R> reader) {
            if (loop.inEventLoop()) {
                return NodeConnection.this.sendNow(ch, request, version, reader);
            }
            CompletableFuture<R> answer = new CompletableFuture<>();
            try {
                loop.execute(() -> NodeConnection.this.sendNow(ch, request, version, reader).whenComplete((r, e) -> {
                    if (e != null) {
                        answer.completeExceptionally(e);
                    } else {
                        answer.complete(r);
                    }
                }));
            } catch (RejectedExecutionException e) {
                answer.completeExceptionally(new InterBrokerException("The broker's event loops are shut down", e));
            }
            return answer;
        }
    }

    /** Hands each answer to the connection, on its event loop. */
    private final class ResponseHandler extends SimpleChannelInboundHandler<ByteBuf> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
            received(ctx.channel(), frame);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.debug("Inter-broker connection to node {} failed", nodeId, cause);
            ctx.close();
        }
    }
}
