package io.brook.server.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.RawClient;
import io.brook.server.config.BrokerConfig;
import io.brook.server.network.TestMessages.Ping;
import io.brook.server.network.TestMessages.Pong;
import io.brook.server.time.ClockTimer;
import io.brook.testkit.Await;
import io.brook.wire.protocol.ApiKey;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Clients that start large frames before authenticating and never finish them cannot keep a new
 * login waiting: once the pre-authentication budget is exceeded, the connection holding the most
 * of it is closed, and the others are read on.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class UnauthenticatedBudgetTest {

    /** ApiVersions may be sent before authentication; here it is answered by a Ping handler. */
    private static final ApiKey KEY = ApiKey.API_VERSIONS;

    private final ClockTimer timer = ClockTimer.following(Clock.systemUTC());
    private final ExecutorService pool = Executors.newFixedThreadPool(2);
    private NetworkServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close(1_000);
        }
        pool.shutdownNow();
        timer.close();
    }

    @Test
    void theLargestHolderIsClosedAndANewClientIsReadAtOnce() throws Exception {
        server = new NetworkServer(BrokerConfig.parse(Map.of(
                "listeners", "SASL_PLAINTEXT://127.0.0.1:0",
                "sasl.enabled.mechanisms", "PLAIN",
                "listener.name.sasl_plaintext.plain.sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required user_a=\"a\";",
                "socket.request.max.bytes", "1000", "sasl.server.max.receive.size", "1000",
                // a pre-authentication budget of 1,000 bytes
                "queued.max.request.bytes", "8000",
                // half-sent frames would otherwise hold their bytes for a minute
                "brook.request.receive.timeout.ms", "60000")), pool, timer);
        InetSocketAddress address = server.start(ApiTable.builder()
                .register(KEY, 0, 3, (buf, v) -> Ping.read(KEY, buf), (ctx, ping) -> ctx.respond(
                        new Pong(KEY, ping.id(), (short) 0)))
                .build());
        try (RawClient large = new RawClient(address); RawClient small = new RawClient(address)) {
            large.sendRaw(halfFrame(700));
            Await.until("the first half frame read", () -> server.unauthenticatedRequestBytes() >= 700);
            small.sendRaw(halfFrame(400)); // 1,100 bytes held: the budget is exceeded

            assertThat(large.closedByBroker()).as("the largest holder closed").isTrue();
            try (RawClient login = new RawClient(address)) {
                login.sendFrame(TestMessages.pingFrame(KEY, (short) 1, 7, 1, 0));
                ByteBuffer answer = login.readFrame(); // the read timeout is 10 s, the receive timeout 60 s
                assertThat(answer.getInt()).isEqualTo(7);
                assertThat(answer.getInt()).isEqualTo(1);
            }
            small.setReadTimeout(200);
            assertThat(small.closedByBroker()).as("the smaller holder kept").isFalse();
        }
        Await.until("all given back", () -> server.unauthenticatedRequestBytes() == 0);
    }

    /** A size prefix claiming {@code held} + 1 bytes, then {@code held} bytes of it. */
    private static byte[] halfFrame(int held) {
        byte[] b = new byte[RequestFrameDecoder.SIZE_PREFIX + held];
        ByteBuffer.wrap(b).putInt(held + 1);
        return b;
    }
}
