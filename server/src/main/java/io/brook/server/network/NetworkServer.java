package io.brook.server.network;

import io.brook.server.config.BrokerConfig;
import io.brook.server.config.Listener;
import io.brook.server.security.BrokerSecurity;
import io.brook.server.security.ListenerSecurity;
import io.brook.server.security.quota.ConnectionLimits;
import io.brook.server.time.Timer;
import io.brook.storage.FileDescriptors;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listeners: binds each configured address with Netty (native epoll where the platform has
 * it, NIO otherwise) and builds each connection's pipeline:
 *
 * <pre>
 * ConnectionLimit -> RequestFrameDecoder -> IdleTimeout -> Connection
 *   (max.connections,      (socket.request.max.bytes,      (connections.max.idle.ms)  (header, dispatch,
 *    max.connections.per.ip) queued.max.request.bytes,                                 ordered responses,
 *                           brook.request.receive.timeout.ms)                          back-pressure)
 * </pre>
 *
 * ConnectionLimit also applies the connection creation quotas ({@link ConnectionCreationRates}).
 * Every connection shares the broker's {@link FairShare} (fairness between client ids while the
 * broker is saturated).
 *
 * On a TLS listener (SSL, SASL_SSL) {@link TlsPipeline} puts its handlers after the limit; a
 * PLAINTEXT listener's pipeline is exactly the one above. Each connection gets its listener's
 * {@link io.brook.server.security.Session}: its principal, and on a SASL listener the state of
 * its authentication, which {@link Connection} enforces.
 *
 * The broker-wide budgets ({@code queued.max.request.bytes}, {@code brook.queued.max.response.bytes})
 * are created here and shared by every connection.
 *
 * The event loops ({@code num.network.threads}, named {@code brook-network-*}) are created here;
 * the I/O pool that runs blocking handlers is given (see {@link IoPool}).
 *
 * Shutdown ({@link #close}) stops accepting, stops reading on every connection, waits (bounded)
 * until the requests already read are answered, then closes the connections.
 */
public final class NetworkServer {

    private static final Logger LOG = LoggerFactory.getLogger(NetworkServer.class);
    /** The client address a connection was counted under for max.connections.per.ip. */
    private static final AttributeKey<InetAddress> COUNTED_ADDRESS = AttributeKey.valueOf("brook.counted-address");
    /** The listener a connection was counted under for {@code listener.name.<l>.max.connections}. */
    private static final AttributeKey<String> COUNTED_LISTENER = AttributeKey.valueOf("brook.counted-listener");
    /** The listener a connection came in on (for its connection creation rate). */
    private static final AttributeKey<String> LISTENER = AttributeKey.valueOf("brook.listener");
    private static final FileDescriptors PROCESS_FILES = FileDescriptors.ofProcess();

    private final BrokerConfig config;
    private final Executor ioPool;
    private final Timer timer;
    // set by serve() before the listener accepts its first connection (see bind)
    private volatile ApiTable apis;
    private final EventLoopGroup group;
    private final Class<? extends ServerChannel> channelClass;
    private final Set<Channel> connections = ConcurrentHashMap.newKeySet();
    private final AtomicInteger connectionCount = new AtomicInteger();
    private final ConnectionLimit limit;
    private final ConnectionCreationRates creationRates;
    private final LongAdder readPauses = new LongAdder();
    private final NetworkLimits limits;
    private final UnauthenticatedHolders unauthenticatedHolders;
    /** brook.fair.share.enable: fairness between client ids while saturated; null when off. */
    private final FairShare fairShare;
    private final BrokerSecurity security;
    private final List<Channel> serverChannels = new ArrayList<>();
    private final Map<String, InetSocketAddress> boundAddresses = new LinkedHashMap<>();
    // set (if at all) before bind(): every connection reads it when it is created
    private volatile RequestObserver observer = RequestObserver.NONE;
    private volatile InlineRequestHook inlineHook = InlineRequestHook.NONE;
    /** Fault hooks' seam: a handler put first in every connection's pipeline; null in production. */
    private volatile Supplier<? extends ChannelHandler> firstHandler;

    /**
     * A server for {@code config}'s listener whose blocking handlers run on {@code ioPool} and
     * whose idle connections are closed on {@code timer}'s time; it {@link #bind()}s before the
     * broker exists and {@link #serve}s once it does.
     */
    public NetworkServer(BrokerConfig config, Executor ioPool, Timer timer) {
        this(config, ioPool, timer, BrokerSecurity.create(config));
    }

    /** As {@link #NetworkServer(BrokerConfig, Executor, Timer)}, with the listeners' security given. */
    public NetworkServer(BrokerConfig config, Executor ioPool, Timer timer, BrokerSecurity security) {
        this.config = config;
        this.security = security;
        this.ioPool = ioPool;
        this.timer = timer;
        this.limit = new ConnectionLimit(security.connectionLimits());
        this.creationRates = new ConnectionCreationRates(security.quotas(), security.connectionLimits());
        this.limits = new NetworkLimits(config.connectionMaxInflightRequests(), config.connectionMaxInflightBytes(),
                new ByteBudget(config.queuedMaxRequestBytes()),
                new ByteBudget(NetworkLimits.unauthenticatedLimit(config.queuedMaxRequestBytes())),
                new ByteBudget(config.queuedMaxResponseBytes()), config.requestMaxDecodedBytes());
        this.unauthenticatedHolders = new UnauthenticatedHolders(limits.unauthenticatedBytes(), timer::nowMs);
        this.fairShare = config.bool(BrokerConfig.FAIR_SHARE_ENABLE) ? new FairShare(timer::nowMs) : null;
        IoHandlerFactory factory;
        if (config.bool(BrokerConfig.NETWORK_EPOLL) && Epoll.isAvailable()) {
            factory = EpollIoHandler.newFactory();
            channelClass = EpollServerSocketChannel.class;
        } else {
            factory = NioIoHandler.newFactory();
            channelClass = NioServerSocketChannel.class;
        }
        group = new MultiThreadIoEventLoopGroup(config.numNetworkThreads(),
                new DefaultThreadFactory("brook-network", true), factory);
    }

    /**
     * Kafka's {@code socket.send.buffer.bytes} and {@code socket.receive.buffer.bytes}. The send
     * buffer has Kafka's fixed 100 KiB by default, which bounds what the kernel holds for each
     * connection: left to autotuning, a send buffer grows to {@code tcp_wmem}'s maximum (4 MiB
     * here) for a client that does not read, and a thousand such clients push the machine's TCP
     * memory past {@code tcp_mem}'s pressure mark, where the kernel throttles every socket, the
     * well-behaved ones too. The receive buffer stays autotuned by default (Kafka: 100 KiB): it
     * grows only as fast as the broker reads, which the broker bounds itself (back-pressure), so
     * a client cannot inflate it, and a fixed window could cap a fast producer. When set, it is
     * set on the listening socket as well, so that accepted sockets start with it (the window
     * scale is agreed during the handshake).
     */
    static void socketBuffers(ServerBootstrap b, BrokerConfig config) {
        int send = config.socketSendBufferBytes();
        if (send > 0) {
            b.childOption(ChannelOption.SO_SNDBUF, send);
        }
        int receive = config.socketReceiveBufferBytes();
        if (receive > 0) {
            b.option(ChannelOption.SO_RCVBUF, receive);
            b.childOption(ChannelOption.SO_RCVBUF, receive);
        }
    }

    /** Binds the listener, serves {@code apis}, and returns the bound address (the real port when 0 was asked for). */
    InetSocketAddress start(ApiTable apis) throws InterruptedException {
        InetSocketAddress bound = bind();
        serve(apis);
        return bound;
    }

    /**
     * Binds the listener without accepting yet and returns the bound address. Clients that
     * connect from now on complete their TCP handshake in the kernel's backlog and may send
     * their first requests; {@link #serve} accepts and answers them. The broker binds first so
     * that a client that is already retrying its connection gets in without waiting out its
     * reconnect back-off, while the rest of the broker starts. Every TLS listener's context is
     * built before the first port opens, so that a TLS configuration error stops the start
     * without any listener having accepted a connection.
     */
    public InetSocketAddress bind() throws InterruptedException {
        List<Listener> listeners = config.listeners().bound();
        // every listener's TLS context first: a configuration error stops the start before any port opens
        List<TlsPipeline> pipelines = new ArrayList<>();
        try {
            for (Listener l : listeners) {
                ListenerSecurity s = security.listener(l.name());
                pipelines.add(s.tls() == null ? null : new TlsPipeline(l.name(), s::tls));
            }
        } catch (RuntimeException e) {
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            throw e;
        }
        InetSocketAddress first = null;
        for (int i = 0; i < listeners.size(); i++) {
            Listener l = listeners.get(i);
            InetSocketAddress bound = bind(l, security.listener(l.name()), pipelines.get(i));
            boundAddresses.put(l.name(), bound);
            if (first == null) {
                first = bound;
            }
        }
        return first;
    }

    /**
     * Builds the TLS context {@code settings} give, as a listener would, without using it: the
     * last check of new key or trust stores before a dynamic update takes them.
     */
    public static void checkTls(io.brook.server.security.TlsSettings settings) throws javax.net.ssl.SSLException {
        TlsPipeline.check(settings);
    }

    /** Where each listener is bound, by listener name, in the configured order. */
    public Map<String, InetSocketAddress> boundAddresses() {
        return Collections.unmodifiableMap(boundAddresses);
    }

    private InetSocketAddress bind(Listener l, ListenerSecurity listenerSecurity, TlsPipeline tls)
            throws InterruptedException {
        ServerBootstrap b = new ServerBootstrap()
                .group(group)
                .channel(channelClass)
                .option(ChannelOption.SO_BACKLOG, config.intValue(BrokerConfig.SOCKET_LISTEN_BACKLOG_SIZE))
                .option(ChannelOption.SO_REUSEADDR, true)
                .option(ChannelOption.AUTO_READ, false)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                // unsent response bytes per connection before it stops reading (file regions count)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(256 * 1024, 1024 * 1024))
                .childOption(ChannelOption.MESSAGE_SIZE_ESTIMATOR, ResponseSizeEstimator.INSTANCE);
        socketBuffers(b, config);
        b.childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ChannelPipeline p = ch.pipeline();
                        ch.attr(LISTENER).set(l.name());
                        p.addLast("limit", limit);
                        io.brook.server.security.Session session = listenerSecurity.newSession();
                        if (tls != null) {
                            tls.addTo(ch, session);
                        }
                        Connection connection = new Connection(apis, ioPool, limits, readPauses,
                                config.bool(BrokerConfig.NETWORK_INLINE_REQUESTS), observer, session);
                        connection.throttleTimer(timer);
                        connection.fairShare(fairShare);
                        connection.inlineHook(inlineHook);
                        p.addLast("frames", new RequestFrameDecoder(config.socketRequestMaxBytes(), limits.requestBytes(),
                                limits.unauthenticatedBytes(), unauthenticatedHolders, timer, config.requestReceiveTimeoutMs(), connection));
                        long authTimeout = session.authenticationTimeoutMs();
                        if (session.usesSasl() && authTimeout > 0) {
                            p.addLast("authentication-deadline", new AuthenticationDeadline(timer, authTimeout, session));
                        }
                        long idle = config.connectionsMaxIdleMs();
                        if (idle > 0) {
                            p.addLast("idle", new IdleTimeout(timer, idle));
                        }
                        p.addLast("requests", connection);
                        Supplier<? extends ChannelHandler> first = firstHandler;
                        if (first != null) {
                            p.addFirst("faults", first.get());
                        }
                    }
                });
        InetSocketAddress bindAddress = l.wildcardHost() ? new InetSocketAddress(l.port())
                : new InetSocketAddress(l.host(), l.port());
        try {
            Channel ch = b.bind(bindAddress).sync().channel();
            // behind Netty's acceptor (added at registration): told of each accept that failed
            ch.pipeline().addLast("accept-failures", new AcceptFailures(l.name(), PROCESS_FILES::limit, timer::nowMs));
            serverChannels.add(ch);
            return (InetSocketAddress) ch.localAddress();
        } catch (Exception e) {
            for (Channel ch : serverChannels) {
                ch.close().awaitUninterruptibly();
            }
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            throw new IllegalStateException("Cannot listen on " + l + ": " + e.getMessage(), e);
        }
    }

    /**
     * Puts a handler from {@code handlers} first in the pipeline of every connection accepted
     * from now on: the seam of the fault hooks (pausing, dropping connections). Costs a null check
     * per accepted connection when unset.
     */
    public void firstHandler(Supplier<? extends ChannelHandler> handlers) {
        this.firstHandler = handlers;
    }

    /** Starts accepting connections on the bound listener, answering them with {@code apis}. */
    public void serve(ApiTable apis) {
        this.apis = apis;
        // (the volatile write above happens before the accept loop, and so every connection, reads them)
        for (Channel ch : serverChannels) {
            ch.config().setAutoRead(true);
        }
    }

    /** Who is told of each answered request (metrics); set before {@link #bind()}. */
    public void requestObserver(RequestObserver o) {
        this.observer = o == null ? RequestObserver.NONE : o;
    }

    /** What runs on an event loop before each request that runs there ({@link InlineRequestHook}); before {@link #bind()}. */
    public void inlineHook(InlineRequestHook h) {
        this.inlineHook = h == null ? InlineRequestHook.NONE : h;
    }

    /** The event loops: other listeners of the broker (the HTTP admin listener) share them. */
    public EventLoopGroup eventLoops() {
        return group;
    }

    /** The channel class of the transport in use, for other listeners on {@link #eventLoops()}. */
    public Class<? extends ServerChannel> serverChannelClass() {
        return channelClass;
    }

    /** The client socket channel class of the transport in use, for connections out of {@link #eventLoops()}. */
    public Class<? extends Channel> clientChannelClass() {
        return channelClass == EpollServerSocketChannel.class ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    /** {@code epoll} or {@code nio}. */
    public String transport() {
        return channelClass == EpollServerSocketChannel.class ? "epoll" : "nio";
    }

    /** How often a connection stopped reading because of its in-flight bound. */
    long readPauses() {
        return readPauses.sum();
    }

    /** Open client connections on the listener. */
    public int connectionCount() {
        return connectionCount.get();
    }

    /** Request bytes read and not yet answered, over all connections (when queued.max.request.bytes bounds them). */
    long queuedRequestBytes() {
        return limits.requestBytes().used();
    }

    /** Request bytes read from SASL clients that have not authenticated yet and not yet handed on. */
    long unauthenticatedRequestBytes() {
        return limits.unauthenticatedBytes().used();
    }

    /** Answer bytes held for clients that have not read them, over all connections. */
    long queuedResponseBytes() {
        return limits.responseBytes().used();
    }

    /**
     * Stops accepting and reading, waits up to {@code drainMillis} for answers to requests
     * already read, then closes every connection and the event loops.
     */
    void close(long drainMillis) {
        close(drainMillis, () -> { });
    }

    /** As {@link #close(long)}, running {@code afterStopReading} once no connection reads any more. */
    public void close(long drainMillis, Runnable afterStopReading) {
        for (Channel ch : serverChannels) {
            ch.close().awaitUninterruptibly();
        }
        List<Channel> open = new ArrayList<>(connections);
        List<Future<Void>> drains = new ArrayList<>(open.size());
        for (Channel ch : open) {
            Connection c = ch.pipeline().get(Connection.class);
            Promise<Void> drained = ch.eventLoop().newPromise();
            drains.add(drained);
            if (c == null) {
                drained.setSuccess(null);
            } else {
                ch.eventLoop().execute(() -> c.stopReading(drained));
            }
        }
        for (Channel ch : open) {
            // a no-op task queued behind stopReading: once it ran, that loop reads no more
            ch.eventLoop().submit(() -> { }).awaitUninterruptibly(1, TimeUnit.SECONDS);
        }
        afterStopReading.run();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(drainMillis);
        for (int i = 0; i < open.size(); i++) {
            long left = Math.max(0, deadline - System.nanoTime());
            if (!drains.get(i).awaitUninterruptibly(left, TimeUnit.NANOSECONDS)) {
                LOG.warn("Closing connection from {} with requests still unanswered", open.get(i).remoteAddress());
            }
            // flush what is queued, then close
            open.get(i).writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
            open.get(i).closeFuture().awaitUninterruptibly(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        }
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }

    /**
     * Counts connections, refuses those beyond {@code max.connections}, per listener beyond
     * {@code listener.name.<l>.max.connections}, and per client address beyond
     * {@code max.connections.per.ip} (or its override for that address), as in force when
     * the connection is accepted ({@link ConnectionLimits}), and remembers the open ones. A
     * refused connection is closed on accept, as Kafka does.
     */
    @ChannelHandler.Sharable
    private final class ConnectionLimit extends ChannelInboundHandlerAdapter {
        private final ConnectionLimits limits;
        private final ConcurrentMap<InetAddress, Integer> byAddress = new ConcurrentHashMap<>();
        private final ConcurrentMap<String, AtomicInteger> byListener = new ConcurrentHashMap<>();

        ConnectionLimit(ConnectionLimits limits) {
            this.limits = limits;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) throws Exception {
            ConnectionLimits.Values now = limits.current();
            int n = connectionCount.incrementAndGet();
            connections.add(ctx.channel());
            if (n > now.maxConnections()) {
                LOG.warn("Closing connection from {}: max.connections={} reached", ctx.channel().remoteAddress(),
                        now.maxConnections());
                ctx.close();
                return;
            }
            String listener = ctx.channel().attr(LISTENER).get();
            if (listener != null) {
                // counted whatever the limit, so that a limit set later applies to those already open
                ctx.channel().attr(COUNTED_LISTENER).set(listener);
                int max = now.maxConnectionsOn(listener);
                if (byListener.computeIfAbsent(listener, l -> new AtomicInteger()).incrementAndGet() > max) {
                    LOG.warn("Closing connection from {}: listener.name.{}.max.connections={} reached",
                            ctx.channel().remoteAddress(), listener.toLowerCase(Locale.ROOT), max);
                    ctx.close();
                    return;
                }
            }
            if (ctx.channel().remoteAddress() instanceof InetSocketAddress remote && remote.getAddress() != null) {
                // counted whatever the limit, as the listener's
                InetAddress address = remote.getAddress();
                int max = now.maxConnectionsFrom(address);
                ctx.channel().attr(COUNTED_ADDRESS).set(address);
                if (byAddress.merge(address, 1, Integer::sum) > max) {
                    LOG.warn("Closing connection from {}: max.connections.per.ip={} reached for {}",
                            remote, max, address.getHostAddress());
                    ctx.close();
                    return;
                }
            }
            String ip = ctx.channel().remoteAddress() instanceof InetSocketAddress remote && remote.getAddress() != null
                    ? remote.getAddress().getHostAddress() : null;
            Channel ch = ctx.channel();
            long hold = creationRates.ipThrottle(ip);
            if (hold > 0) {
                // over its address's connection_creation_rate: never read, closed after the throttle (Kafka)
                ch.config().setAutoRead(false);
                timer.schedule(hold, ch::close);
                return;
            }
            long delay = creationRates.acceptDelay(ch.attr(LISTENER).get());
            if (delay > 0) {
                // the listener or the broker over its connection creation rate: served once the time has passed
                ch.config().setAutoRead(false);
                timer.schedule(delay, () -> ch.eventLoop().execute(() -> {
                    if (ch.isActive()) {
                        ctx.fireChannelActive();
                        ch.config().setAutoRead(true);
                    }
                }));
                return;
            }
            super.channelActive(ctx);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) throws Exception {
            connectionCount.decrementAndGet();
            connections.remove(ctx.channel());
            String listener = ctx.channel().attr(COUNTED_LISTENER).getAndSet(null);
            if (listener != null) {
                byListener.get(listener).decrementAndGet();
            }
            InetAddress address = ctx.channel().attr(COUNTED_ADDRESS).getAndSet(null);
            if (address != null) {
                byAddress.computeIfPresent(address, (a, count) -> count == 1 ? null : count - 1);
            }
            super.channelInactive(ctx);
        }
    }
}
