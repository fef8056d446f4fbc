package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

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
 * followed by random or mutated bodies. Whatever happens to the abusive connection (an answer,
 * an error, a close), the broker keeps serving other clients, and a client on a connection
 * that was open all along is never disturbed.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ProtocolAbuseTest {

    private Brook brook;
    private InetSocketAddress address;

    @BeforeEach
    void start() throws Exception {
        brook = Brook.builder().start();
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

    /** Sends one abusive frame and waits until the broker answered or closed the connection. */
    private void abuse(ByteBuffer frame) throws IOException {
        try (RawClient c = new RawClient(address)) {
            c.setReadTimeout(2_000);
            c.sendFrame(frame);
            // either an answer, or a close; then we hang up ourselves
            try {
                c.readFrame();
            } catch (IOException closed) {
                // the broker closed the connection: fine
            }
        }
    }

    @Test
    void shouldSurviveRandomAndMutatedBodiesForEveryApiAndVersion() throws Exception {
        Random random = new Random(42);
        try (ProtocolClient bystander = new ProtocolClient(address)) {
            for (ApiTable.Entry<?> e : Brook.apiTable().entries()) {
                for (short v = e.acceptFrom; v <= e.advertisedMax; v++) {
                    short hv = e.key.requestHeaderVersion(v);
                    RequestHeader h = new RequestHeader(e.key, v, random.nextInt(), "abuser");
                    byte[] junk = new byte[random.nextInt(64)];
                    random.nextBytes(junk);
                    abuse(frame(h, hv, junk));
                    byte[] valid = encodedDefault(e, v);
                    if (valid != null && valid.length > 0) {
                        for (int i = 0; i < 3; i++) {
                            byte[] mutated = valid.clone();
                            for (int k = 0; k < 1 + random.nextInt(4); k++) {
                                mutated[random.nextInt(mutated.length)] = (byte) random.nextInt();
                            }
                            abuse(frame(h, hv, mutated));
                        }
                        abuse(frame(h, hv, java.util.Arrays.copyOf(valid, valid.length / 2)));
                    }
                }
                ApiVersionsResponse ok = bystander.call(new ApiVersionsRequest().clientSoftwareName("bystander")
                        .clientSoftwareVersion("1.0"), (short) 3);
                assertThat(ok.errorCode()).as("after abusing %s", e.key).isZero();
            }
        }
        try (ProtocolClient fresh = new ProtocolClient(address)) {
            MetadataResponse m = fresh.call(new MetadataRequest().topics(null), (short) 12);
            assertThat(m.topics()).extracting(MetadataResponse.MetadataResponseTopic::name).contains("victim");
        }
    }

    private static byte[] encodedDefault(ApiTable.Entry<?> e, short version) {
        try {
            ApiMessage m = ApiMessages.newRequest(e.key);
            ByteBuffer b = m.toByteBuffer(version);
            byte[] out = new byte[b.remaining()];
            b.get(out);
            return out;
        } catch (RuntimeException cannotEncodeDefaults) {
            return null;
        }
    }
}
