package io.brook.server.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.RawClient;
import io.brook.server.config.BrokerConfig;
import io.brook.server.time.ClockTimer;
import io.brook.testkit.Await;
import io.brook.testkit.MutableClock;
import io.brook.wire.message.DescribeGroupsRequest;
import io.brook.wire.message.DescribeGroupsResponse;
import io.brook.wire.protocol.ApiKey;
import io.brook.wire.protocol.ByteBufferWriter;
import io.brook.wire.protocol.RequestHeader;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A request's decoded form is bounded in heap, not only its frame in bytes: a small frame of
 * many tiny elements that would decode past {@code brook.request.max.decoded.bytes} closes its
 * connection before it is decoded whole, and one within it counts its heap estimate in {@code
 * queued.max.request.bytes} until it is answered, so that many such requests held at once stop
 * the broker reading instead of filling the heap.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DecodedHeapLimitTest {

    private static final short VERSION = 4; // not flexible: request header v1
    private static final long LIMIT = 65_536;

    private final ClockTimer timer = new ClockTimer(new MutableClock(1_000_000));
    private final List<RequestContext> held = new CopyOnWriteArrayList<>();
    private ExecutorService pool;
    private NetworkServer server;
    private InetSocketAddress address;

    @BeforeEach
    void start() throws Exception {
        BrokerConfig config = BrokerConfig.parse(Map.of("listeners", "PLAINTEXT://127.0.0.1:0",
                BrokerConfig.REQUEST_MAX_DECODED_BYTES, Long.toString(LIMIT),
                "socket.request.max.bytes", "1000000", "queued.max.request.bytes", Integer.toString(10 << 20)));
        pool = Executors.newFixedThreadPool(2);
        server = new NetworkServer(config, pool, timer);
        ApiHandler<DescribeGroupsRequest> handler = (ctx, request) -> held.add(ctx);
        address = server.start(ApiTable.builder().register(ApiKey.DESCRIBE_GROUPS, 0, 5, handler).build());
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

    private static ByteBuffer frame(int correlationId, int groups) {
        RequestHeader h = new RequestHeader(ApiKey.DESCRIBE_GROUPS, VERSION, correlationId, "test");
        short hv = ApiKey.DESCRIBE_GROUPS.requestHeaderVersion(VERSION);
        DescribeGroupsRequest body = new DescribeGroupsRequest()
                .groups(new ArrayList<>(Collections.nCopies(groups, "g")));
        ByteBuffer b = ByteBuffer.allocate(h.size(hv) + body.size(VERSION));
        ByteBufferWriter w = new ByteBufferWriter(b);
        h.write(w, hv);
        body.write(w, VERSION);
        return b.flip();
    }

    @Test
    void aSmallFrameThatWouldDecodePastTheLimitClosesItsConnectionAndOthersAreServed() throws Exception {
        ByteBuffer big = frame(1, 10_000); // about 30 KB on the wire, over a megabyte decoded
        assertThat(big.remaining()).isLessThan((int) LIMIT);
        try (RawClient c = new RawClient(address)) {
            c.setReadTimeout(10_000);
            c.sendFrame(big);
            assertThat(c.readFrameOrClose()).as("closed without an answer").isNull();
        }
        Await.until("the request's bytes given back", () -> server.queuedRequestBytes() == 0);
        assertThat(held).isEmpty();

        try (RawClient other = new RawClient(address)) {
            other.sendFrame(frame(2, 100));
            Await.until("the small request reached its handler", () -> held.size() == 1);
            held.get(0).respond(new DescribeGroupsResponse());
            ByteBuffer answer = other.readFrame();
            assertThat(answer.getInt()).as("correlation id").isEqualTo(2);
        }
    }

    @Test
    void aDecodedRequestCountsItsHeapEstimateInTheRequestBudgetUntilAnswered() throws Exception {
        ByteBuffer small = frame(3, 100);
        int frameBytes = small.remaining() + 4;
        try (RawClient c = new RawClient(address)) {
            c.sendFrame(small);
            Await.until("the request reached its handler", () -> held.size() == 1);
            // a hundred groups: each an element and a String of its own, at least 100 bytes estimated
            assertThat(server.queuedRequestBytes()).isGreaterThan(frameBytes + 100L * 100);
            assertThat(server.queuedRequestBytes()).isLessThan(LIMIT);
            held.get(0).respond(new DescribeGroupsResponse());
            assertThat(c.readFrame().getInt()).isEqualTo(3);
        }
        Await.until("the bytes and the estimate given back", () -> server.queuedRequestBytes() == 0);
    }
}
