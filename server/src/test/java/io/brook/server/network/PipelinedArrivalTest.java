package io.brook.server.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.RawClient;
import io.brook.server.config.BrokerConfig;
import io.brook.server.network.TestMessages.Ping;
import io.brook.server.network.TestMessages.Pong;
import io.brook.server.time.WheelTimer;
import io.brook.testkit.Await;
import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.Errors;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A request that arrives while an earlier one of its connection is unanswered is marked pipelined
 * (what the fair share counts to tell a pressing client from a light one); one sent after every
 * answer was read is not.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PipelinedArrivalTest {

    private static final ApiKey KEY = ApiKey.LIST_OFFSETS;
    private static final short VERSION = 1;
    /** Requests with ids at or above this are answered only when the test says so. */
    private static final int HOLD = 1000;

    /** Whether each request id arrived pipelined. */
    private final Map<Integer, Boolean> pipelined = new ConcurrentHashMap<>();
    private final Map<Integer, RequestContext> held = new ConcurrentHashMap<>();
    private final WheelTimer timer = new WheelTimer();
    private ExecutorService pool;
    private NetworkServer server;
    private InetSocketAddress address;

    @BeforeEach
    void start() throws Exception {
        ApiHandler<Ping> handler = new ApiHandler<>() {
            @Override
            public void handle(RequestContext ctx, Ping ping) {
                pipelined.put(ping.id(), ctx.arrivedPipelined());
                if (ping.id() >= HOLD) {
                    held.put(ping.id(), ctx);
                } else {
                    ctx.respond(new Pong(KEY, ping.id(), Errors.NONE.code()));
                }
            }

            @Override
            public boolean runsOnEventLoop(Ping ping) {
                return true; // answered during the read, as ApiVersions and small Fetches are
            }
        };
        ApiTable table = ApiTable.builder().register(KEY, 1, 5, (buf, v) -> Ping.read(KEY, buf), handler).build();
        pool = Executors.newFixedThreadPool(1, r -> new Thread(r, "test-pool"));
        server = new NetworkServer(BrokerConfig.parse(Map.of("listeners", "PLAINTEXT://127.0.0.1:0")), pool, timer);
        address = server.start(table);
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

    private static ByteBuffer ping(int correlationId, int id) {
        return TestMessages.pingFrame(KEY, VERSION, correlationId, id, 0);
    }

    private static int pongId(RawClient c) throws IOException {
        ByteBuffer b = c.readFrame();
        b.getInt(); // correlation id
        return b.getInt();
    }

    @Test
    void aRequestBehindAnUnansweredOneIsPipelinedAndOneAfterTheAnswersIsNot() throws Exception {
        try (RawClient c = new RawClient(address)) {
            c.sendFrame(ping(1, 1));
            assertThat(pongId(c)).isEqualTo(1);
            c.sendFrame(ping(2, HOLD + 2));
            Await.until("the held request reached its handler", () -> held.containsKey(HOLD + 2));
            c.sendFrame(ping(3, 3));
            Await.until("the request behind it reached its handler", () -> pipelined.containsKey(3));
            held.remove(HOLD + 2).respond(new Pong(KEY, HOLD + 2, Errors.NONE.code()));
            assertThat(pongId(c)).isEqualTo(HOLD + 2);
            assertThat(pongId(c)).isEqualTo(3);
            c.sendFrame(ping(4, 4));
            assertThat(pongId(c)).isEqualTo(4);
            // two requests in one write: the first is answered before the second is read, but
            // the client sent the second without waiting for that answer
            c.sendRaw(framed(ping(5, 5), ping(6, 6)));
            assertThat(pongId(c)).isEqualTo(5);
            assertThat(pongId(c)).isEqualTo(6);
        }
        assertThat(pipelined).containsExactlyInAnyOrderEntriesOf(
                Map.of(1, false, HOLD + 2, false, 3, true, 4, false, 5, false, 6, true));
    }

    /** The frames with their size prefixes, back to back. */
    private static byte[] framed(ByteBuffer... frames) {
        ByteBuffer all = ByteBuffer.allocate(java.util.Arrays.stream(frames).mapToInt(f -> 4 + f.remaining()).sum());
        for (ByteBuffer f : frames) {
            all.putInt(f.remaining()).put(f);
        }
        return all.array();
    }
}
