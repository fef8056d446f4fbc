package io.brook.server.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.RawClient;
import io.brook.server.config.BrokerConfig;
import io.brook.server.network.TestMessages.Ping;
import io.brook.server.network.TestMessages.Pong;
import io.brook.server.time.WheelTimer;
import io.brook.testkit.Await;
import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.Errors;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.concurrent.EventExecutor;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Requests whose handler never blocks run on the event loop when the connection has nothing
 * queued for the I/O pool; handlers still see a connection's requests in order and responses
 * still go out in request order.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InlineRequestsTest {

    /** Handled on the I/O pool; id BLOCK_ID waits in handle() for {@link #release}, ids >= HOLD are answered later. */
    private static final ApiKey POOLED = ApiKey.METADATA;
    /** Handled inline when possible; ids >= HOLD are answered later. */
    private static final ApiKey INLINE = ApiKey.LIST_OFFSETS;
    private static final short VERSION = 1;
    private static final int BLOCK_ID = 1;
    private static final int HOLD = 1000;

    /** "id@thread" in the order handle() was called. */
    private final List<String> calls = new CopyOnWriteArrayList<>();
    private final Map<Integer, RequestContext> held = new ConcurrentHashMap<>();
    private final CountDownLatch blocked = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private final WheelTimer timer = new WheelTimer();
    private ExecutorService pool;
    private NetworkServer server;
    private InetSocketAddress address;

    private final class Handler implements ApiHandler<Ping> {
        private final ApiKey key;
        private final boolean inline;

        Handler(ApiKey key, boolean inline) {
            this.key = key;
            this.inline = inline;
        }

        @Override
        public void handle(RequestContext ctx, Ping ping) {
            calls.add(ping.id() + "@" + Thread.currentThread().getName());
            if (ping.id() == BLOCK_ID) {
                blocked.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            if (ping.id() >= HOLD) {
                held.put(ping.id(), ctx);
            } else {
                ctx.respond(new Pong(key, ping.id(), Errors.NONE.code()));
            }
        }

        @Override
        public boolean runsOnEventLoop(Ping request) {
            return inline;
        }
    }

    private void start(boolean inlineRequests) throws Exception {
        start(inlineRequests, InlineRequestHook.NONE);
    }

    private void start(boolean inlineRequests, InlineRequestHook hook) throws Exception {
        Map<String, String> props = new HashMap<>(Map.of("listeners", "PLAINTEXT://127.0.0.1:0",
                "num.network.threads", "1", "brook.network.inline.requests", Boolean.toString(inlineRequests)));
        BrokerConfig config = BrokerConfig.parse(props);
        ApiTable table = ApiTable.builder()
                .register(POOLED, 0, 5, (buf, v) -> Ping.read(POOLED, buf), new Handler(POOLED, false))
                .register(INLINE, 1, 5, (buf, v) -> Ping.read(INLINE, buf), new Handler(INLINE, true))
                .build();
        pool = Executors.newFixedThreadPool(2, r -> new Thread(r, "test-pool"));
        server = new NetworkServer(config, pool, timer);
        server.inlineHook(hook);
        address = server.start(table);
    }

    @AfterEach
    void stop() {
        release.countDown();
        if (server != null) {
            server.close(1_000);
        }
        if (pool != null) {
            pool.shutdownNow();
        }
        timer.close();
    }

    private static ByteBuffer ping(ApiKey key, int correlationId, int id) {
        return TestMessages.pingFrame(key, VERSION, correlationId, id, 0);
    }

    /** Correlation id (header v0), Pong id, error code. */
    private static int[] readPong(RawClient c) throws IOException {
        ByteBuffer b = c.readFrame();
        return new int[] {b.getInt(), b.getInt(), b.getShort()};
    }

    @Test
    void shouldRunANonBlockingHandlerOnTheEventLoopWhenNothingIsQueued() throws Exception {
        start(true);
        try (RawClient c = new RawClient(address)) {
            c.sendFrame(ping(INLINE, 1, 2));
            assertThat(readPong(c)).containsExactly(1, 2, 0);
            c.sendFrame(ping(POOLED, 2, 3));
            assertThat(readPong(c)).containsExactly(2, 3, 0);
        }
        assertThat(calls).hasSize(2);
        assertThat(calls.get(0)).startsWith("2@brook-network");
        assertThat(calls.get(1)).isEqualTo("3@test-pool");
    }

    @Test
    void shouldCallTheHookOnTheEventLoopWithItsExecutorBeforeEachInlineRequest() throws Exception {
        List<String> hooked = new CopyOnWriteArrayList<>();
        start(true, loop -> hooked.add(calls.size() + "@" + Thread.currentThread().getName() + " in its loop "
                + ((EventExecutor) loop).inEventLoop()));
        try (RawClient c = new RawClient(address)) {
            c.sendFrame(ping(INLINE, 1, 2));
            assertThat(readPong(c)).containsExactly(1, 2, 0);
            c.sendFrame(ping(POOLED, 2, 3));
            assertThat(readPong(c)).containsExactly(2, 3, 0);
            // the loop may hear that the pool is done with the connection only after the answer
            // went out: until then an inline request queues behind it on the pool (no hook)
            int[] id = {3};
            Await.until("an inline request on the loop again", () -> {
                try {
                    c.sendFrame(ping(INLINE, id[0], id[0]));
                    assertThat(readPong(c)).containsExactly(id[0], id[0], 0);
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
                return calls.get(calls.size() - 1).startsWith(id[0]++ + "@brook-network");
            });
        }
        // before each request handled on the loop, on the loop, and for no other
        List<String> onTheLoop = new ArrayList<>();
        for (int i = 0; i < calls.size(); i++) {
            if (calls.get(i).contains("@brook-network")) {
                onTheLoop.add(i + "@" + calls.get(i).substring(calls.get(i).indexOf('@') + 1) + " in its loop true");
            }
        }
        assertThat(calls.get(1)).isEqualTo("3@test-pool");
        assertThat(onTheLoop).hasSizeGreaterThanOrEqualTo(2);
        assertThat(hooked).containsExactlyElementsOf(onTheLoop);
    }

    @Test
    void shouldQueueANonBlockingRequestBehindOneStillRunningOnThePool() throws Exception {
        start(true);
        try (RawClient c = new RawClient(address)) {
            c.sendFrame(ping(POOLED, 1, BLOCK_ID));
            assertThat(blocked.await(10, TimeUnit.SECONDS)).isTrue();
            c.sendFrame(ping(INLINE, 2, 2));
            c.sendFrame(ping(INLINE, 3, 3));
            c.sendFrame(ping(POOLED, 4, 4));
            // two round trips on another connection of the same (only) event loop: by then the
            // loop has read the frames above, which were in the socket before the first of these
            try (RawClient other = new RawClient(address)) {
                other.sendFrame(ping(INLINE, 901, 901));
                assertThat(readPong(other)).containsExactly(901, 901, 0);
                other.sendFrame(ping(INLINE, 902, 902));
                assertThat(readPong(other)).containsExactly(902, 902, 0);
            }
            calls.removeIf(s -> s.startsWith("90"));
            // the pooled request still runs: the ones behind it must not overtake it
            assertThat(calls).containsExactly(BLOCK_ID + "@test-pool");
            release.countDown();
            assertThat(readPong(c)).containsExactly(1, BLOCK_ID, 0);
            assertThat(readPong(c)).containsExactly(2, 2, 0);
            assertThat(readPong(c)).containsExactly(3, 3, 0);
            assertThat(readPong(c)).containsExactly(4, 4, 0);
            assertThat(calls).containsExactly(BLOCK_ID + "@test-pool", "2@test-pool", "3@test-pool", "4@test-pool");
            // once the pool has nothing of this connection, inline requests run on the loop again
            Await.until("the pool is done with the connection", () -> {
                try {
                    c.sendFrame(ping(INLINE, 5, 5));
                    int[] pong = readPong(c);
                    return pong[1] == 5 && calls.get(calls.size() - 1).startsWith("5@brook-network");
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
        }
    }

    @Test
    void shouldHoldAnInlineAnswerUntilTheEarlierPooledAnswerIsSent() throws Exception {
        start(true);
        try (RawClient c = new RawClient(address)) {
            c.sendFrame(ping(POOLED, 1, HOLD + 1));
            Await.until("pooled request handled", () -> held.containsKey(HOLD + 1));
            c.sendFrame(ping(INLINE, 2, 2));
            c.sendFrame(ping(INLINE, 3, HOLD + 3));
            c.sendFrame(ping(INLINE, 4, 4));
            Await.until("inline requests handled", () -> calls.size() == 4);
            assertThat(calls.subList(1, 4)).allMatch(s -> s.contains("@brook-network"));
            held.remove(HOLD + 3).respond(new Pong(INLINE, HOLD + 3, (short) 0));
            held.remove(HOLD + 1).respond(new Pong(POOLED, HOLD + 1, (short) 0));
            assertThat(readPong(c)).containsExactly(1, HOLD + 1, 0);
            assertThat(readPong(c)).containsExactly(2, 2, 0);
            assertThat(readPong(c)).containsExactly(3, HOLD + 3, 0);
            assertThat(readPong(c)).containsExactly(4, 4, 0);
        }
    }

    @Test
    void shouldAnswerPipelinedInlineRequestsInOrder() throws Exception {
        start(true);
        int n = 200;
        try (RawClient c = new RawClient(address)) {
            for (int i = 0; i < n; i++) {
                c.sendFrame(ping(i % 3 == 0 ? POOLED : INLINE, i, 10 + i));
            }
            for (int i = 0; i < n; i++) {
                assertThat(readPong(c)).containsExactly(i, 10 + i, 0);
            }
        }
        for (int i = 0; i < n; i++) {
            assertThat(calls.get(i)).startsWith((10 + i) + "@");
        }
    }

    @Test
    void shouldFlushTheAnswersToOneReadOnce() {
        ApiTable table = ApiTable.builder()
                .register(INLINE, 1, 5, (buf, v) -> Ping.read(INLINE, buf), new Handler(INLINE, true))
                .build();
        Executor noPool = task -> {
            throw new AssertionError("nothing should reach the pool");
        };
        Connection connection = new Connection(table, noPool,
                new NetworkLimits(16, 1 << 20, new ByteBudget(-1), new ByteBudget(-1), new ByteBudget(-1),
                        Long.MAX_VALUE), new LongAdder(), true);
        AtomicInteger flushes = new AtomicInteger();
        EmbeddedChannel channel = new EmbeddedChannel(new ChannelOutboundHandlerAdapter() {
            @Override
            public void flush(ChannelHandlerContext ctx) {
                flushes.incrementAndGet();
                ctx.flush();
            }
        }, connection);
        try {
            // one read of three frames (the frame decoder has already removed the size prefixes)
            channel.writeInbound(Unpooled.wrappedBuffer(ping(INLINE, 1, 11)), Unpooled.wrappedBuffer(ping(INLINE, 2, 12)),
                    Unpooled.wrappedBuffer(ping(INLINE, 3, 13)));
            assertThat(flushes.get()).isEqualTo(1);
            for (int i = 1; i <= 3; i++) {
                ByteBuf response = channel.readOutbound();
                assertThat(response.readInt()).isEqualTo(4 + 6); // size: correlation id + Pong
                assertThat(response.readInt()).isEqualTo(i);
                assertThat(response.readInt()).isEqualTo(10 + i);
                response.release();
            }
            assertThat((Object) channel.readOutbound()).isNull();
        } finally {
            channel.finishAndReleaseAll();
        }
    }

    @Test
    void shouldHandEverythingToThePoolWhenInlineRequestsAreOff() throws Exception {
        start(false);
        try (RawClient c = new RawClient(address)) {
            c.sendFrame(ping(INLINE, 1, 2));
            assertThat(readPong(c)).containsExactly(1, 2, 0);
        }
        assertThat(calls).containsExactly("2@test-pool");
    }
}
