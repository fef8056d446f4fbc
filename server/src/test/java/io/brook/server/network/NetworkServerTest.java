package io.brook.server.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.RawClient;
import io.brook.server.config.BrokerConfig;
import io.brook.server.network.TestMessages.Ping;
import io.brook.server.network.TestMessages.Pong;
import io.brook.server.time.ClockTimer;
import io.brook.testkit.Await;
import io.brook.testkit.MutableClock;
import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.Errors;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NetworkServerTest {

    private static final ApiKey KEY = ApiKey.METADATA;
    private static final short VERSION = 1;

    /**
     * ids >= HOLD are kept until the test answers them; NO_RESPONSE_ID is never answered; THROW_ID
     * throws; ids <= ECHO_PADDING answer with as much padding as the request carried.
     */
    private static final int HOLD = 100;
    private static final int ECHO_PADDING = -1000;
    private static final int NO_RESPONSE_ID = 7;
    private static final int THROW_ID = -1;
    /** Answered with a message whose encoding fails as a refused direct buffer does. */
    private static final int UNENCODABLE_ID = 9;

    private final Map<Integer, RequestContext> held = new ConcurrentHashMap<>();
    private final AtomicInteger handled = new AtomicInteger();
    private final AtomicInteger mostHeld = new AtomicInteger();
    private final Map<Integer, Integer> answeredWhenHandled = new ConcurrentHashMap<>();
    private final AtomicInteger answered = new AtomicInteger();
    private final MutableClock clock = new MutableClock(1_000_000);
    private final ClockTimer timer = new ClockTimer(clock);
    private ExecutorService pool;
    private NetworkServer server;
    private InetSocketAddress address;

    private final class PingHandler implements ApiHandler<Ping> {
        @Override
        public void handle(RequestContext ctx, Ping ping) {
            handled.incrementAndGet();
            if (ping.id() == THROW_ID) {
                throw new IllegalStateException("handler bug");
            }
            answeredWhenHandled.put(ping.id(), answered.get());
            if (ping.id() == NO_RESPONSE_ID) {
                ctx.noResponse();
            } else if (ping.id() == UNENCODABLE_ID) {
                ctx.respond(new ApiMessage() {
                    @Override
                    public ApiKey apiKey() {
                        return KEY;
                    }

                    @Override
                    public int size(short version) {
                        return 6;
                    }

                    @Override
                    public void write(io.brook.wire.protocol.ProtocolWriter out, short version) {
                        throw new OutOfMemoryError("Cannot reserve 65536 bytes of direct buffer memory");
                    }
                });
            } else if (ping.id() >= HOLD) {
                held.put(ping.id(), ctx);
                mostHeld.accumulateAndGet(held.size(), Math::max);
            } else if (ping.id() <= ECHO_PADDING) {
                ctx.respond(new Pong(KEY, ping.id(), Errors.NONE.code(), ping.padding()));
            } else {
                ctx.respond(new Pong(KEY, ping.id(), Errors.NONE.code()));
            }
        }
    }

    private void start(Map<String, String> overrides) throws Exception {
        Map<String, String> props = new HashMap<>(Map.of("listeners", "PLAINTEXT://127.0.0.1:0", "num.network.threads", "2"));
        props.putAll(overrides);
        BrokerConfig config = BrokerConfig.parse(props);
        pool = Executors.newFixedThreadPool(4);
        server = new NetworkServer(config, pool, timer);
        address = server.start(pingTable());
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close(1_000);
        }
        if (pool != null) {
            pool.shutdownNow();
        }
        timer.close();
    }

    private ApiTable pingTable() {
        return ApiTable.builder().register(KEY, 0, 5, (buf, v) -> Ping.read(KEY, buf), new PingHandler()).build();
    }

    private static ByteBuffer ping(int correlationId, int id) {
        return TestMessages.pingFrame(KEY, VERSION, correlationId, id, 0);
    }

    /** Reads a response frame: correlation id (header v0), Pong id, error code. */
    private static int[] readPong(RawClient c) throws IOException {
        ByteBuffer b = c.readFrame();
        return new int[] {b.getInt(), b.getInt(), b.getShort()};
    }

    private void assertServesNewClient() throws IOException {
        try (RawClient c = new RawClient(address)) {
            c.sendFrame(ping(42, 1));
            assertThat(readPong(c)).containsExactly(42, 1, 0);
        }
    }

    @ParameterizedTest(name = "epoll={0}")
    @ValueSource(booleans = {true, false})
    void shouldAnswerAClientThatConnectedBeforeTheServerServed(boolean epoll) throws Exception {
        BrokerConfig config = BrokerConfig.parse(Map.of("listeners", "PLAINTEXT://127.0.0.1:0",
                "brook.network.epoll", Boolean.toString(epoll)));
        pool = Executors.newFixedThreadPool(2);
        server = new NetworkServer(config, pool, timer);
        address = server.bind();
        try (RawClient c = new RawClient(address)) {
            c.sendFrame(ping(5, 6));
            c.setReadTimeout(200);
            // bound but not serving: the connection waits in the backlog, the request unread
            assertThat(c.closedByBroker()).isFalse();
            assertThat(handled.get()).isZero();
            c.setReadTimeout(10_000);
            server.serve(pingTable());
            assertThat(readPong(c)).containsExactly(5, 6, 0);
        }
        assertServesNewClient();
    }

    @Test
    void shouldAnswerInRequestOrderWhenALaterRequestCompletesFirst() throws Exception {
        start(Map.of());
        try (RawClient c = new RawClient(address)) {
            c.sendFrame(ping(1, HOLD + 1));
            c.sendFrame(ping(2, HOLD + 2));
            c.sendFrame(ping(3, 3));
            c.sendFrame(ping(4, HOLD + 4));
            // all four are being processed while the first is still unanswered
            Await.until("four requests handled", () -> handled.get() == 4);
            held.get(HOLD + 4).respond(new Pong(KEY, HOLD + 4, (short) 0));
            held.get(HOLD + 2).respond(new Pong(KEY, HOLD + 2, (short) 0));
            held.get(HOLD + 1).respond(new Pong(KEY, HOLD + 1, (short) 0));
            assertThat(readPong(c)).containsExactly(1, HOLD + 1, 0);
            assertThat(readPong(c)).containsExactly(2, HOLD + 2, 0);
            assertThat(readPong(c)).containsExactly(3, 3, 0);
            assertThat(readPong(c)).containsExactly(4, HOLD + 4, 0);
        }
    }

    @Test
    void shouldSendNoResponseWhenHandlerSaysSoAndKeepOrder() throws Exception {
        start(Map.of());
        try (RawClient c = new RawClient(address)) {
            c.sendFrame(ping(1, HOLD + 1));
            c.sendFrame(ping(2, NO_RESPONSE_ID));
            c.sendFrame(ping(3, 3));
            Await.until("three requests handled", () -> handled.get() == 3);
            held.get(HOLD + 1).respond(new Pong(KEY, HOLD + 1, (short) 0));
            assertThat(readPong(c)).containsExactly(1, HOLD + 1, 0);
            assertThat(readPong(c)).containsExactly(3, 3, 0);
        }
    }

    @Test
    void shouldTurnHandlerExceptionIntoUnknownServerErrorForThatRequestOnly() throws Exception {
        start(Map.of());
        try (RawClient c = new RawClient(address)) {
            c.sendFrame(ping(1, THROW_ID));
            c.sendFrame(ping(2, 2));
            assertThat(readPong(c)).containsExactly(1, THROW_ID, Errors.UNKNOWN_SERVER_ERROR.code());
            assertThat(readPong(c)).containsExactly(2, 2, 0);
        }
    }

    @Test
    void shouldCloseConnectionOnSizePrefixNearTwoGigabytes() throws Exception {
        start(Map.of());
        try (RawClient c = new RawClient(address)) {
            c.sendRaw(new byte[] {0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xf0, 0, 0, 0});
            assertThat(c.closedByBroker()).isTrue();
        }
        assertServesNewClient();
    }

    @Test
    void shouldCloseConnectionOnNegativeSizePrefix() throws Exception {
        start(Map.of());
        try (RawClient c = new RawClient(address)) {
            c.sendRaw(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xfe});
            assertThat(c.closedByBroker()).isTrue();
        }
        assertServesNewClient();
    }

    @Test
    void shouldCloseConnectionOnFrameAboveSocketRequestMaxBytes() throws Exception {
        start(Map.of("socket.request.max.bytes", "1000"));
        try (RawClient c = new RawClient(address)) {
            c.sendFrame(TestMessages.pingFrame(KEY, VERSION, 1, 1, 990));
            assertThat(c.closedByBroker()).isTrue();
        }
        try (RawClient c = new RawClient(address)) {
            c.sendFrame(TestMessages.pingFrame(KEY, VERSION, 1, 1, 900));
            assertThat(readPong(c)).containsExactly(1, 1, 0);
        }
    }

    @Test
    void shouldCloseConnectionOnUnknownApiKey() throws Exception {
        start(Map.of());
        try (RawClient c = new RawClient(address)) {
            ByteBuffer b = ByteBuffer.allocate(14).putShort((short) 999).putShort((short) 0).putInt(1)
                    .putShort((short) -1).putInt(0).flip();
            c.sendFrame(b);
            assertThat(c.closedByBroker()).isTrue();
        }
        try (RawClient c = new RawClient(address)) {
            c.sendFrame(TestMessages.pingFrame(ApiKey.FETCH, (short) 4, 1, 1, 0)); // known key, not registered
            assertThat(c.closedByBroker()).isTrue();
        }
        assertServesNewClient();
    }

    @Test
    void shouldCloseConnectionOnUnsupportedVersion() throws Exception {
        start(Map.of());
        try (RawClient c = new RawClient(address)) {
            c.sendFrame(TestMessages.pingFrame(KEY, (short) 6, 1, 1, 0));
            assertThat(c.closedByBroker()).isTrue();
        }
        assertServesNewClient();
    }

    @Test
    void shouldCloseConnectionOnMalformedBodyAfterAnsweringEarlierRequests() throws Exception {
        start(Map.of());
        try (RawClient c = new RawClient(address)) {
            c.sendFrame(ping(1, 1));
            ByteBuffer bad = TestMessages.pingFrame(KEY, VERSION, 2, 2, 0);
            bad.putInt(bad.limit() - 4, 1_000_000); // padding length beyond the frame
            c.sendFrame(bad);
            assertThat(readPong(c)).containsExactly(1, 1, 0);
            assertThat(c.closedByBroker()).isTrue();
        }
        assertServesNewClient();
    }

    @Test
    void shouldSurviveRandomBytesAndTruncatedFrames() throws Exception {
        start(Map.of());
        Random random = new Random(1234);
        for (int i = 0; i < 50; i++) {
            try (RawClient c = new RawClient(address)) {
                byte[] junk = new byte[1 + random.nextInt(200)];
                random.nextBytes(junk);
                c.sendRaw(junk);
            }
        }
        for (int i = 0; i < 10; i++) {
            try (RawClient c = new RawClient(address)) {
                ByteBuffer frame = ping(1, 1);
                byte[] all = new byte[4 + frame.remaining()];
                ByteBuffer.wrap(all).putInt(frame.remaining()).put(frame);
                c.sendRaw(java.util.Arrays.copyOf(all, 1 + random.nextInt(all.length - 1)));
            }
        }
        assertServesNewClient();
        Await.until("abusive connections closed", () -> server.connectionCount() == 0);
    }

    @Test
    void shouldRefuseConnectionsBeyondMaxConnections() throws Exception {
        assertServesTwoAndRefusesAThird(Map.of("max.connections", "2"));
    }

    /** Two connections are served, a third is closed on accept, and a new one is served once they are gone. */
    private void assertServesTwoAndRefusesAThird(Map<String, String> config) throws Exception {
        start(config);
        try (RawClient a = new RawClient(address); RawClient b = new RawClient(address)) {
            a.sendFrame(ping(1, 1));
            b.sendFrame(ping(1, 1));
            assertThat(readPong(a)).containsExactly(1, 1, 0);
            assertThat(readPong(b)).containsExactly(1, 1, 0);
            try (RawClient third = new RawClient(address)) {
                assertThat(third.closedByBroker()).isTrue();
            }
        }
        Await.until("connections released", () -> server.connectionCount() == 0);
        assertServesNewClient();
    }

    @Test
    void shouldCloseConnectionsIdleForConnectionsMaxIdleMs() throws Exception {
        start(Map.of("connections.max.idle.ms", "60000"));
        try (RawClient c = new RawClient(address)) {
            c.sendFrame(ping(1, 1));
            assertThat(readPong(c)).containsExactly(1, 1, 0);
            clock.advance(59_999);
            timer.runDue();
            // still open: a request is answered, and it counts as activity
            c.sendFrame(ping(2, 2));
            assertThat(readPong(c)).containsExactly(2, 2, 0);
            clock.advance(59_999);
            timer.runDue();
            c.sendFrame(ping(3, 3));
            assertThat(readPong(c)).containsExactly(3, 3, 0);
            Await.until("the idle check re-armed", () -> timer.pending() == 1);
            clock.advance(60_000);
            timer.runDue();
            assertThat(c.closedByBroker()).isTrue();
        }
        assertServesNewClient();
    }

    @Test
    void shouldKeepAnIdleConnectionWhoseRequestIsStillBeingAnswered() throws Exception {
        start(Map.of("connections.max.idle.ms", "60000"));
        try (RawClient c = new RawClient(address)) {
            c.sendFrame(ping(1, HOLD + 1));
            Await.until("request held", () -> held.containsKey(HOLD + 1));
            Await.until("the idle check armed", () -> timer.pending() == 1);
            clock.advance(60_000);
            timer.runDue();
            Await.until("the idle check re-armed for another period", () -> timer.pending() == 1);
            held.remove(HOLD + 1).respond(new Pong(KEY, HOLD + 1, (short) 0));
            assertThat(readPong(c)).containsExactly(1, HOLD + 1, 0);
            c.sendFrame(ping(2, 2));
            assertThat(readPong(c)).containsExactly(2, 2, 0);
        }
    }

    @Test
    void shouldStopReadingAboveInflightBoundAndResumeWhenAnswered() throws Exception {
        start(Map.of("brook.connection.max.inflight.bytes", "100000"));
        int count = 40;
        int padding = 60_000;
        try (RawClient c = new RawClient(address)) {
            Thread writer = new Thread(() -> {
                try {
                    for (int i = 0; i < count; i++) {
                        c.sendFrame(TestMessages.pingFrame(KEY, VERSION, i, HOLD + i, padding));
                    }
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            writer.start();
            Await.until("reading paused", () -> server.readPauses() > 0);
            assertThat(held.size()).isLessThan(count);
            // answer whatever arrives, in reverse order of arrival within each round
            int answered = 0;
            while (answered < count) {
                int next = answered;
                Await.until("request " + next + " held", () -> held.containsKey(HOLD + next));
                held.remove(HOLD + next).respond(new Pong(KEY, HOLD + next, (short) 0));
                answered++;
            }
            for (int i = 0; i < count; i++) {
                assertThat(readPong(c)).containsExactly(i, HOLD + i, 0);
            }
            writer.join(10_000);
        }
    }

    @Test
    void shouldStopReadingFromAClientThatDoesNotReadItsAnswers() throws Exception {
        start(Map.of());
        // 1000 answers of 64 KiB: far more than the socket buffers of both ends and the 1 MiB
        // high water mark can hold while the client reads nothing
        int count = 1000;
        int padding = 64 * 1024;
        try (RawClient c = new RawClient(address)) {
            Thread writer = new Thread(() -> {
                try {
                    for (int i = 0; i < count; i++) {
                        c.sendFrame(TestMessages.pingFrame(KEY, VERSION, i, ECHO_PADDING - i, padding));
                    }
                } catch (IOException e) {
                    // the test closes the socket at the end
                }
            });
            writer.setDaemon(true);
            writer.start();
            Await.until("reading paused for unread answers", () -> server.readPauses() > 0);
            for (int i = 0; i < count; i++) {
                assertThat(readPong(c)).containsExactly(i, ECHO_PADDING - i, 0);
            }
            writer.join(10_000);
        }
    }

    @Test
    void shouldKeepRequestOrderForRandomCompletionOrders() throws Exception {
        start(Map.of());
        Random random = new Random(7);
        try (RawClient c = new RawClient(address)) {
            int correlation = 0;
            for (int round = 0; round < 20; round++) {
                int n = 2 + random.nextInt(15);
                int base = HOLD + round * 100;
                for (int i = 0; i < n; i++) {
                    c.sendFrame(ping(++correlation, base + i));
                }
                Await.until("round " + round + " held", () -> {
                    for (int i = 0; i < n; i++) {
                        if (!held.containsKey(base + i)) {
                            return false;
                        }
                    }
                    return true;
                });
                List<Integer> order = new java.util.ArrayList<>();
                for (int i = 0; i < n; i++) {
                    order.add(i);
                }
                java.util.Collections.shuffle(order, random);
                for (int i : order) {
                    held.remove(base + i).respond(new Pong(KEY, base + i, (short) 0));
                }
                for (int i = 0; i < n; i++) {
                    assertThat(readPong(c)).containsExactly(correlation - n + 1 + i, base + i, 0);
                }
            }
        }
    }

    @Test
    void shouldBoundTheRequestsInFlightOfAPipeliningClient() throws Exception {
        start(Map.of("brook.connection.max.inflight.requests", "4"));
        int count = 50;
        try (RawClient c = new RawClient(address)) {
            ByteBuffer all = ByteBuffer.allocate(count * 64);
            for (int i = 0; i < count; i++) {
                ByteBuffer frame = ping(i, HOLD + i);
                all.putInt(frame.remaining()).put(frame);
            }
            c.sendRaw(java.util.Arrays.copyOf(all.array(), all.position())); // one write: the broker reads them at once
            for (int i = 0; i < count; i++) {
                int id = HOLD + i;
                Await.until("request " + i + " held", () -> held.containsKey(id));
                answered.incrementAndGet();
                held.remove(id).respond(new Pong(KEY, id, (short) 0));
            }
            for (int i = 0; i < count; i++) {
                assertThat(readPong(c)).containsExactly(i, HOLD + i, 0);
            }
        }
        assertThat(mostHeld.get()).as("requests handled and not yet answered at once").isLessThanOrEqualTo(4);
    }

    @Test
    void shouldAnswerARequestWhoseAnswerCannotBeWritten() throws Exception {
        start(Map.of());
        try (RawClient c = new RawClient(address)) {
            c.sendFrame(ping(1, UNENCODABLE_ID));
            c.sendFrame(ping(2, 2));
            // answered once, with the request's own error response, and in order
            assertThat(readPong(c)).containsExactly(1, UNENCODABLE_ID, Errors.UNKNOWN_SERVER_ERROR.code());
            assertThat(readPong(c)).containsExactly(2, 2, 0);
        }
    }

    @Test
    void shouldCloseAConnectionThatDoesNotCompleteARequestInTime() throws Exception {
        start(Map.of("connections.max.idle.ms", "-1", "brook.request.receive.timeout.ms", "30000"));
        try (RawClient c = new RawClient(address)) {
            c.sendFrame(ping(1, 1));
            assertThat(readPong(c)).containsExactly(1, 1, 0);
            // a size prefix, then a trickle that never completes the frame
            c.sendRaw(new byte[] {0, 0, 0, 100, 0, 3, 0, 1});
            Await.until("the receive deadline armed", () -> timer.pending() == 1);
            clock.advance(29_999);
            timer.runDue();
            c.sendRaw(new byte[] {0, 0});
            clock.advance(1);
            timer.runDue();
            assertThat(c.closedByBroker()).isTrue();
        }
        assertServesNewClient();
    }

    @Test
    void shouldStopReadingBeyondQueuedMaxRequestBytesUntilRequestsComplete() throws Exception {
        start(Map.of("socket.request.max.bytes", "700", "queued.max.request.bytes", "1000"));
        try (RawClient a = new RawClient(address)) {
            // two frames of ~530 bytes in one write, both unanswered: more than 1000 bytes are held
            ByteBuffer both = ByteBuffer.allocate(2048);
            for (int i = 1; i <= 2; i++) {
                ByteBuffer frame = TestMessages.pingFrame(KEY, VERSION, i, HOLD + i, 500);
                both.putInt(frame.remaining()).put(frame);
            }
            a.sendRaw(java.util.Arrays.copyOf(both.array(), both.position()));
            Await.until("two held", () -> held.size() == 2);
            try (RawClient b = new RawClient(address)) {
                b.sendFrame(TestMessages.pingFrame(KEY, VERSION, 3, 3, 500));
                // either it was read (and the bound failed) or the new connection waits for room
                Await.until("the request read or held back", () -> handled.get() == 3 || server.readPauses() >= 2);
                answered.incrementAndGet();
                held.remove(HOLD + 1).respond(new Pong(KEY, HOLD + 1, (short) 0));
                assertThat(readPong(b)).containsExactly(3, 3, 0);
                assertThat(answeredWhenHandled.get(3)).as("answered requests when the third was read").isEqualTo(1);
            }
            held.remove(HOLD + 2).respond(new Pong(KEY, HOLD + 2, (short) 0));
            assertThat(readPong(a)).containsExactly(1, HOLD + 1, 0);
            assertThat(readPong(a)).containsExactly(2, HOLD + 2, 0);
        }
        Await.until("request bytes given back", () -> server.queuedRequestBytes() == 0);
    }

    @Test
    void shouldRefuseConnectionsBeyondMaxConnectionsPerIp() throws Exception {
        assertServesTwoAndRefusesAThird(Map.of("max.connections.per.ip", "2"));
    }

    @Test
    void shouldApplyAPerAddressOverrideOfMaxConnectionsPerIp() throws Exception {
        start(Map.of("max.connections.per.ip", "0", "max.connections.per.ip.overrides", "127.0.0.1:1"));
        try (RawClient a = new RawClient(address)) {
            a.sendFrame(ping(1, 1));
            assertThat(readPong(a)).containsExactly(1, 1, 0);
            try (RawClient second = new RawClient(address)) {
                assertThat(second.closedByBroker()).isTrue();
            }
        }
        Await.until("connections released", () -> server.connectionCount() == 0);
        assertServesNewClient();
    }

    @Test
    void clientsThatHaveNotAuthenticatedCannotStopTheReadsOfOthers() throws Exception {
        start(Map.of("listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0",
                "sasl.enabled.mechanisms", "PLAIN",
                "listener.name.sasl_plaintext.plain.sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required user_a=\"a\";",
                "socket.request.max.bytes", "1000", "sasl.server.max.receive.size", "1000",
                // 1,000 bytes before authentication; beyond it the largest holder would be closed
                "queued.max.request.bytes", "8000"));
        InetSocketAddress sasl = server.boundAddresses().get("SASL_PLAINTEXT");
        try (RawClient unauthenticated = new RawClient(sasl)) {
            byte[] halfFrame = new byte[RequestFrameDecoder.SIZE_PREFIX + 900]; // claims 1000 bytes, holds 900
            ByteBuffer.wrap(halfFrame).putInt(1000);
            unauthenticated.sendRaw(halfFrame);
            Await.until("the bytes read", () -> server.unauthenticatedRequestBytes()
                    + server.queuedRequestBytes() >= halfFrame.length);
            assertThat(server.queuedRequestBytes()).as("not in the broker-wide budget").isZero();
            try (RawClient other = new RawClient(address)) {
                other.setReadTimeout(10_000);
                other.sendFrame(ping(1, 1));
                assertThat(readPong(other)).containsExactly(1, 1, 0);
            }
        }
        Await.until("given back when the connection closed", () -> server.unauthenticatedRequestBytes() == 0);
    }

    @Test
    void shouldNotLetSizePrefixesAloneLockTheRequestBudget() throws Exception {
        start(Map.of("socket.request.max.bytes", "700", "queued.max.request.bytes", "1000"));
        List<RawClient> claimers = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < 10; i++) {
                RawClient c = new RawClient(address);
                c.sendRaw(new byte[] {0, 0, 2, (byte) 188}); // claims 700 bytes, sends none of them
                claimers.add(c);
            }
            assertServesNewClient();
        } finally {
            for (RawClient c : claimers) {
                c.close();
            }
        }
    }
}
