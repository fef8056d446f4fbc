package io.brook.server.http;

import io.brook.server.config.Listener;
import io.brook.server.metrics.BrokerMetrics;
import io.brook.server.metrics.PrometheusText;
import io.brook.server.network.AcceptFailures;
import io.brook.storage.FileDescriptors;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP admin listener ({@code brook.http.listener}), served by Netty on the broker's own
 * event loops:
 *
 * <ul>
 *   <li>{@code GET /}: the console, a page that reads {@code /metrics} and {@code /console.json}
 *       every two seconds and shows the broker, its topics (with their configs) and its consumer
 *       groups' lag and members (plain HTML, CSS and JavaScript in the jar, {@code console/});</li>
 *   <li>{@code GET /console.json}: what the console shows besides metrics: topic configs and
 *       group members ({@link ConsoleState});</li>
 *   <li>{@code GET /metrics}: every metric in Prometheus' text format ({@link PrometheusText});</li>
 *   <li>{@code GET /health}: 200 while the process serves HTTP at all;</li>
 *   <li>{@code GET /ready}: 200 once the logs are recovered, the group coordinator has loaded
 *       and the Kafka listener accepts, else 503 (on a dedicated controller: once it knows the
 *       quorum's leader).</li>
 * </ul>
 *
 * Read-only: anything but GET and HEAD is answered 405; the listener has no authentication yet,
 * which is why it binds to the loopback address by default. A scrape reads gauges that may wait
 * briefly for the group coordinator (so does {@code /console.json}), so it runs on {@code blocking} (the I/O pool), never on an
 * event loop; the answer is written from there.
 */
public final class AdminHttpServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(AdminHttpServer.class);
    private static final int MAX_REQUEST_BYTES = 64 * 1024;

    private final Channel channel;

    private AdminHttpServer(Channel channel) {
        this.channel = channel;
    }

    /**
     * {@link #start}, or null: without a listener ({@code none}), or when the default address is
     * taken (another broker on this machine), said in the log; an explicit address that is taken
     * fails the start.
     */
    public static AdminHttpServer startUnlessTaken(Listener listener, boolean explicit, EventLoopGroup loops,
            Class<? extends ServerChannel> channelClass, BrokerMetrics metrics, ConsoleState state, Executor blocking,
            BooleanSupplier ready) {
        if (listener == null) {
            return null;
        }
        try {
            return start(listener, loops, channelClass, metrics, state, blocking, ready);
        } catch (IllegalStateException e) {
            if (explicit) {
                throw e;
            }
            LOG.warn("{}; running without the HTTP admin listener", e.getMessage());
            return null;
        }
    }

    /**
     * Binds {@code listener} on {@code loops}. Without {@code state} (a dedicated controller,
     * which has no topics or groups to show) there is no console: {@code /}, its files and
     * {@code /console.json} answer 404.
     *
     * @throws IllegalStateException when the address cannot be bound
     */
    public static AdminHttpServer start(Listener listener, EventLoopGroup loops,
            Class<? extends ServerChannel> channelClass, BrokerMetrics metrics, ConsoleState state, Executor blocking,
            BooleanSupplier ready) {
        PrometheusText text = new PrometheusText(metrics);
        Map<String, StaticFile> console = state == null ? Map.of() : Map.of(
                "/", StaticFile.load("index.html", "text/html; charset=utf-8"),
                "/console.js", StaticFile.load("console.js", "text/javascript; charset=utf-8"),
                "/console.css", StaticFile.load("console.css", "text/css; charset=utf-8"));
        ServerBootstrap b = new ServerBootstrap().group(loops).channel(channelClass)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(MAX_REQUEST_BYTES),
                                new Routes(text, state, console, blocking, ready));
                    }
                });
        InetSocketAddress address = listener.wildcardHost() ? new InetSocketAddress(listener.port())
                : new InetSocketAddress(listener.host(), listener.port());
        try {
            Channel ch = b.bind(address).sync().channel();
            ch.pipeline().addLast(new AcceptFailures("HTTP admin (brook.http.listener)",
                    FileDescriptors.ofProcess()::limit, () -> System.nanoTime() / 1_000_000));
            LOG.info("HTTP admin listener on {} (/metrics, /health, /ready)", ch.localAddress());
            return new AdminHttpServer(ch);
        } catch (Exception e) {
            throw new IllegalStateException("Cannot listen on " + listener.host() + ":" + listener.port()
                    + " (brook.http.listener): " + e.getMessage(), e);
        }
    }

    /** The bound port (the real one when 0 was asked for). */
    public int port() {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    @Override
    public void close() {
        channel.close().awaitUninterruptibly();
    }

    /** A file of the console, read from the jar once. */
    private record StaticFile(byte[] content, String contentType) {
        static StaticFile load(String name, String contentType) {
            try (InputStream in = AdminHttpServer.class.getResourceAsStream("console/" + name)) {
                if (in == null) {
                    throw new IllegalStateException("console/" + name + " is missing from the jar");
                }
                return new StaticFile(in.readAllBytes(), contentType);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private static final class Routes extends SimpleChannelInboundHandler<FullHttpRequest> {
        private final PrometheusText text;
        private final ConsoleState state;
        private final Map<String, StaticFile> console;
        private final Executor blocking;
        private final BooleanSupplier ready;

        Routes(PrometheusText text, ConsoleState state, Map<String, StaticFile> console, Executor blocking,
                BooleanSupplier ready) {
            this.text = text;
            this.state = state;
            this.console = console;
            this.blocking = blocking;
            this.ready = ready;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
            boolean keepAlive = HttpUtil.isKeepAlive(request);
            boolean head = request.method().equals(HttpMethod.HEAD);
            if (!head && !request.method().equals(HttpMethod.GET)) {
                send(ctx, keepAlive, false, plain(HttpResponseStatus.METHOD_NOT_ALLOWED, "read-only\n"));
                return;
            }
            String path = new QueryStringDecoder(request.uri()).path();
            switch (path) {
                case "/health" -> send(ctx, keepAlive, head, plain(HttpResponseStatus.OK, "ok\n"));
                case "/ready" -> send(ctx, keepAlive, head, ready.getAsBoolean()
                        ? plain(HttpResponseStatus.OK, "ready\n")
                        : plain(HttpResponseStatus.SERVICE_UNAVAILABLE, "starting\n"));
                case "/metrics" -> {
                    try {
                        blocking.execute(() -> send(ctx, keepAlive, head, scrape(ctx)));
                    } catch (RejectedExecutionException e) {
                        send(ctx, false, head, plain(HttpResponseStatus.SERVICE_UNAVAILABLE, "stopping\n"));
                    }
                }
                case "/console.json" -> {
                    if (state == null) {
                        send(ctx, keepAlive, head, plain(HttpResponseStatus.NOT_FOUND, "not found\n"));
                        return;
                    }
                    try {
                        blocking.execute(() -> send(ctx, keepAlive, head, json(state.json())));
                    } catch (RejectedExecutionException e) {
                        send(ctx, false, head, plain(HttpResponseStatus.SERVICE_UNAVAILABLE, "stopping\n"));
                    }
                }
                default -> {
                    StaticFile f = console.get(path);
                    if (f == null) {
                        send(ctx, keepAlive, head, plain(HttpResponseStatus.NOT_FOUND, "not found\n"));
                    } else {
                        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                                Unpooled.wrappedBuffer(f.content()));
                        r.headers().set(HttpHeaderNames.CONTENT_TYPE, f.contentType());
                        send(ctx, keepAlive, head, r);
                    }
                }
            }
        }

        private FullHttpResponse scrape(ChannelHandlerContext ctx) {
            ByteBuf body = ctx.alloc().buffer();
            try (ByteBufOutputStream out = new ByteBufOutputStream(body)) {
                text.write(out);
            } catch (IOException | RuntimeException e) {
                body.release();
                LOG.error("Could not write the metrics", e);
                return plain(HttpResponseStatus.INTERNAL_SERVER_ERROR, "could not write the metrics\n");
            }
            FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, body);
            r.headers().set(HttpHeaderNames.CONTENT_TYPE, PrometheusText.CONTENT_TYPE);
            return r;
        }

        private static FullHttpResponse json(String json) {
            FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                    Unpooled.copiedBuffer(json, StandardCharsets.UTF_8));
            r.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json");
            r.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-store");
            return r;
        }

        private static FullHttpResponse plain(HttpResponseStatus status, String text) {
            FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                    Unpooled.copiedBuffer(text, StandardCharsets.UTF_8));
            r.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
            return r;
        }

        private static void send(ChannelHandlerContext ctx, boolean keepAlive, boolean head, FullHttpResponse r) {
            HttpUtil.setContentLength(r, r.content().readableBytes());
            if (head) {
                r.content().clear();
            }
            if (keepAlive) {
                r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
                ctx.writeAndFlush(r);
            } else {
                ctx.writeAndFlush(r).addListener(ChannelFutureListener.CLOSE);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            LOG.debug("HTTP admin connection from {} failed", ctx.channel().remoteAddress(), cause);
            ctx.close();
        }
    }
}
