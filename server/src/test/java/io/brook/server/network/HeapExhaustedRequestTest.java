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
import io.brook.wire.protocol.ApiRequest;
import io.brook.wire.protocol.Errors;
import io.brook.wire.protocol.ProtocolWriter;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A request that runs the heap out (decoding a huge request, or building even its error answer)
 * is that request's failure: its connection closes, the bytes it held go back to the broker-wide
 * request budget, and every other client is served. Escaping, the error would leave the frame
 * held for ever, and the request unanswered.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HeapExhaustedRequestTest {

    private static final ApiKey KEY = ApiKey.METADATA;
    private static final short VERSION = 1;
    /** Its body's decoding runs out of heap. */
    private static final int DECODE_OOM = 13;
    /** Its handler runs out of heap, and so does the error answer made for it. */
    private static final int ANSWER_OOM = 14;

    private final ClockTimer timer = new ClockTimer(new MutableClock(1_000_000));
    private ExecutorService pool;
    private NetworkServer server;
    private InetSocketAddress address;

    /** A request whose error answer cannot be made either. */
    private record Doomed(ApiKey apiKey) implements ApiRequest {
        @Override
        public int size(short version) {
            return 8;
        }

        @Override
        public void write(ProtocolWriter out, short version) {
            out.writeInt(ANSWER_OOM);
            out.writeInt(0);
        }

        @Override
        public ApiMessage errorResponse(short version, Errors error) {
            throw new OutOfMemoryError("Java heap space (error answer)");
        }
    }

    private static ApiRequest read(ByteBuffer buf) {
        int id = buf.remaining() >= 4 ? buf.getInt(buf.position()) : 0;
        if (id == DECODE_OOM) {
            throw new OutOfMemoryError("Java heap space (decoding)");
        }
        if (id == ANSWER_OOM) {
            buf.position(buf.position() + 8);
            return new Doomed(KEY);
        }
        return Ping.read(KEY, buf);
    }

    private static void handle(RequestContext ctx, ApiRequest request) {
        if (request instanceof Ping ping) {
            ctx.respond(new Pong(KEY, ping.id(), Errors.NONE.code()));
        } else {
            throw new OutOfMemoryError("Java heap space (handler)");
        }
    }

    @BeforeEach
    void start() throws Exception {
        BrokerConfig config = BrokerConfig.parse(Map.of("listeners", "PLAINTEXT://127.0.0.1:0",
                "num.network.threads", "2", "socket.request.max.bytes", "100000", "queued.max.request.bytes", "100000"));
        pool = Executors.newFixedThreadPool(2);
        server = new NetworkServer(config, pool, timer);
        ApiHandler<ApiRequest> handler = HeapExhaustedRequestTest::handle;
        address = server.start(ApiTable.builder()
                .register(KEY, 0, 5, (buf, v) -> read(buf), handler).build());
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

    @Test
    void aRequestWhoseDecodingRunsOutOfHeapClosesItsConnectionAndGivesItsBytesBack() throws Exception {
        assertClosesAndFrees(DECODE_OOM);
    }

    @Test
    void aRequestWhoseErrorAnswerRunsOutOfHeapClosesItsConnectionAndGivesItsBytesBack() throws Exception {
        assertClosesAndFrees(ANSWER_OOM);
    }

    private void assertClosesAndFrees(int id) throws Exception {
        try (RawClient c = new RawClient(address)) {
            c.setReadTimeout(10_000);
            c.sendFrame(TestMessages.pingFrame(KEY, VERSION, 1, id, 0));
            assertThat(c.readFrameOrClose()).as("the connection closed without an answer").isNull();
        }
        Await.until("the request's bytes given back", () -> server.queuedRequestBytes() == 0);
        try (RawClient other = new RawClient(address)) {
            other.sendFrame(TestMessages.pingFrame(KEY, VERSION, 2, 1, 0));
            ByteBuffer answer = other.readFrame();
            assertThat(answer.getInt()).as("correlation id").isEqualTo(2);
            assertThat(answer.getInt()).as("pong id").isEqualTo(1);
        }
    }
}
