package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.network.ApiTable;
import io.brook.wire.message.ApiMessages;
import io.brook.wire.message.ApiVersionsRequest;
import io.brook.wire.message.ApiVersionsResponse;
import io.brook.wire.message.MetadataRequest;
import io.brook.wire.message.MetadataRequest.MetadataRequestTopic;
import io.brook.wire.message.MetadataResponse;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.ByteBufferWriter;
import io.brook.wire.protocol.RequestHeader;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hostile input against the real broker: valid headers of every registered API and version
 * followed by random or mutated bodies. The abusive connection is answered or closed, never left
 * hanging; the broker keeps serving other clients, and a client on a connection that was open
 * all along is never disturbed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ProtocolAbuseTest {

    /** The correlation id of the valid request that follows each abusive one. */
    private static final int FOLLOW_UP_ID = 0x5eed;

    private Brook brook;
    private InetSocketAddress address;

    @BeforeEach
    void start() throws Exception {
        brook = Brook.builder().config("group.initial.rebalance.delay.ms", "0").start();
        address = new InetSocketAddress("127.0.0.1", brook.port());
        try (ProtocolClient c = new ProtocolClient(address)) {
            c.call(new MetadataRequest().topics(List.of(new MetadataRequestTopic().name("victim"))), (short) 12);
        }
    }

    @AfterEach
    void stop() {
        brook.close();
    }

    private static ByteBuffer frame(RequestHeader h, short headerVersion, byte[] body) {
        ByteBuffer b = ByteBuffer.allocate(h.size(headerVersion) + body.length);
        h.write(new ByteBufferWriter(b), headerVersion);
        return b.put(body).flip();
    }

    /**
     * Sends one abusive frame, then a valid ApiVersions request on the same connection, and
     * requires the broker to answer that one — after answering the abusive request or not (a
     * Produce mutated to acks=0 gets no answer) — or to close the connection (a real end of
     * stream or reset). A broker that hangs on the frame does neither within the read time-out,
     * which fails the test.
     */
    private void abuse(String what, ByteBuffer frame) throws IOException {
        try (RawClient c = new RawClient(address)) {
            c.sendFrame(frame);
            c.sendFrame(ProtocolClient.encode(new ApiVersionsRequest().clientSoftwareName("abuser")
                    .clientSoftwareVersion("1.0"), (short) 3, FOLLOW_UP_ID));
            for (int answers = 0; answers < 2; answers++) {
                ByteBuffer answer = c.readFrameOrClose();
                if (answer == null || answer.getInt(0) == FOLLOW_UP_ID) {
                    return;
                }
            }
            throw new AssertionError("more than one answer to the abusive request");
        } catch (AssertionError e) {
            throw new AssertionError(what + ": " + e.getMessage(), e);
        }
    }

    @Test
    void shouldSurviveRandomAndMutatedBodiesForEveryApiAndVersion() throws Exception {
        Random random = new Random(42);
        try (ProtocolClient bystander = new ProtocolClient(address)) {
            for (ApiTable.Entry<?> e : brook.apis().entries()) {
                for (short v = e.acceptFrom(); v <= e.advertisedMax(); v++) {
                    short hv = e.key().requestHeaderVersion(v);
                    int correlationId = random.nextInt();
                    if (correlationId == FOLLOW_UP_ID) {
                        correlationId++;
                    }
                    RequestHeader h = new RequestHeader(e.key(), v, correlationId, "abuser");
                    byte[] junk = new byte[random.nextInt(64)];
                    random.nextBytes(junk);
                    String what = e.key().displayName() + " v" + v;
                    abuse(what + " with a random body", frame(h, hv, junk));
                    byte[] valid = encodedDefault(e, v);
                    if (valid != null && valid.length > 0) {
                        for (int i = 0; i < 3; i++) {
                            byte[] mutated = valid.clone();
                            for (int k = 0; k < 1 + random.nextInt(4); k++) {
                                mutated[random.nextInt(mutated.length)] = (byte) random.nextInt();
                            }
                            abuse(what + " with a mutated body " + i, frame(h, hv, mutated));
                        }
                        abuse(what + " with a truncated body", frame(h, hv, java.util.Arrays.copyOf(valid, valid.length / 2)));
                    }
                }
                ApiVersionsResponse ok = bystander.call(new ApiVersionsRequest().clientSoftwareName("bystander")
                        .clientSoftwareVersion("1.0"), (short) 3);
                assertThat(ok.errorCode()).as("after abusing %s", e.key()).isZero();
            }
        }
        try (ProtocolClient fresh = new ProtocolClient(address)) {
            MetadataResponse m = fresh.call(new MetadataRequest().topics(null), (short) 12);
            assertThat(m.topics()).extracting(MetadataResponse.MetadataResponseTopic::name).contains("victim");
        }
    }

    private static byte[] encodedDefault(ApiTable.Entry<?> e, short version) {
        try {
            ApiMessage m = ApiMessages.newRequest(e.key());
            ByteBuffer b = m.toByteBuffer(version);
            byte[] out = new byte[b.remaining()];
            b.get(out);
            return out;
        } catch (RuntimeException cannotEncodeDefaults) {
            return null;
        }
    }
}
