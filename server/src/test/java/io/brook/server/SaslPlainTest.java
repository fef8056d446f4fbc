package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.wire.message.MetadataRequest;
import io.brook.wire.message.MetadataResponse;
import io.brook.wire.message.ProduceRequest;
import io.brook.wire.message.ProduceResponse;
import io.brook.wire.message.SaslAuthenticateRequest;
import io.brook.wire.message.SaslAuthenticateResponse;
import io.brook.wire.message.SaslHandshakeRequest;
import io.brook.wire.message.SaslHandshakeResponse;
import io.brook.wire.protocol.BufferRecords;
import io.brook.wire.protocol.Errors;
import io.brook.wire.record.Compression;
import io.brook.wire.record.RecordBatchBuilder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * SASL/PLAIN on a SASL_PLAINTEXT listener next to a PLAINTEXT one, spoken byte by byte: the
 * handshake and authenticate requests, the raw tokens after a v0 handshake, and what happens to
 * a connection that skips, fails or misuses authentication.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SaslPlainTest {

    private static Brook brook;

    @BeforeAll
    static void start() {
        brook = Brook.builder()
                .config("listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0")
                .config("sasl.enabled.mechanisms", "PLAIN")
                .config("listener.name.sasl_plaintext.plain.sasl.jaas.config",
                        "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"admin\""
                                + " password=\"admin-secret\" user_admin=\"admin-secret\" user_alice=\"alice-secret\""
                                + " user_u=\"p\";")
                .start();
    }

    @AfterAll
    static void stop() {
        brook.close();
    }

    private static ProtocolClient sasl() throws Exception {
        return new ProtocolClient(brook.bootstrapServers("SASL_PLAINTEXT"));
    }

    private static byte[] plain(String user, String password) {
        return ("\0" + user + "\0" + password).getBytes(StandardCharsets.UTF_8);
    }

    private static MetadataResponse metadata(ProtocolClient c) throws Exception {
        return c.call(new MetadataRequest().topics(List.of()).allowAutoTopicCreation(false), (short) 12);
    }

    @Test
    void authenticatesWithHandshakeV1AndSaslAuthenticate() throws Exception {
        try (ProtocolClient c = sasl()) {
            SaslHandshakeResponse h = c.call(new SaslHandshakeRequest().mechanism("PLAIN"), (short) 1);
            assertThat(h.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(h.mechanisms()).containsExactly("PLAIN");
            SaslAuthenticateResponse a = c.call(new SaslAuthenticateRequest().authBytes(plain("alice", "alice-secret")),
                    (short) 2);
            assertThat(a.errorCode()).isEqualTo(Errors.NONE.code());
            MetadataResponse m = metadata(c);
            assertThat(m.brokers().get(0).port()).as("the SASL listener's own port")
                    .isEqualTo(port(brook.bootstrapServers("SASL_PLAINTEXT")));
        }
    }

    @Test
    void authenticatesWithRawTokensAfterHandshakeV0() throws Exception {
        try (ProtocolClient c = sasl()) {
            SaslHandshakeResponse h = c.call(new SaslHandshakeRequest().mechanism("PLAIN"), (short) 0);
            assertThat(h.errorCode()).isEqualTo(Errors.NONE.code());
            c.raw().sendFrame(ByteBuffer.wrap(plain("admin", "admin-secret")));
            assertThat(c.raw().readFrame().remaining()).as("PLAIN's empty server token").isZero();
            assertThat(metadata(c).brokers()).hasSize(1);
        }
    }

    @Test
    void aRawTokenShorterThanARequestHeaderIsATokenAllTheSame() throws Exception {
        try (ProtocolClient c = sasl()) {
            c.call(new SaslHandshakeRequest().mechanism("PLAIN"), (short) 0);
            c.raw().sendFrame(ByteBuffer.wrap(plain("u", "p"))); // 4 bytes
            assertThat(c.raw().readFrame().remaining()).isZero();
            assertThat(metadata(c).brokers()).hasSize(1);
        }
    }

    @Test
    void beforeAuthenticationAFrameAboveSaslServerMaxReceiveSizeClosesTheConnection() throws Exception {
        try (ProtocolClient c = sasl()) {
            // only the size prefix: the broker refuses it before buffering any of the claimed bytes
            c.raw().sendRaw(ByteBuffer.allocate(4).putInt(524_289).array());
            assertThat(c.raw().closedByBroker()).isTrue();
        }
        try (ProtocolClient c = sasl()) {
            c.call(new SaslHandshakeRequest().mechanism("PLAIN"), (short) 0);
            c.raw().sendRaw(ByteBuffer.allocate(4).putInt(1 << 20).array());
            assertThat(c.raw().closedByBroker()).as("a raw token too").isTrue();
        }
        // once authenticated, socket.request.max.bytes bounds the requests: a produce of 700 kB is served
        try (ProtocolClient c = sasl()) {
            c.call(new SaslHandshakeRequest().mechanism("PLAIN"), (short) 1);
            assertThat(c.<SaslAuthenticateResponse>call(new SaslAuthenticateRequest()
                    .authBytes(plain("alice", "alice-secret")), (short) 2).errorCode()).isEqualTo(Errors.NONE.code());
            c.call(new MetadataRequest().topics(List.of(new MetadataRequest.MetadataRequestTopic().name("sasl-big")))
                    .allowAutoTopicCreation(true), (short) 12); // creates it
            RecordBatchBuilder b = new RecordBatchBuilder(Compression.NONE);
            b.append(1L, null, new byte[700_000]);
            ProduceResponse r = c.call(new ProduceRequest().acks((short) 1).timeoutMs(10_000).topicData(List.of(
                    new ProduceRequest.TopicProduceData().name("sasl-big").partitionData(List.of(
                            new ProduceRequest.PartitionProduceData().index(0).records(BufferRecords.wrap(b.build())))))),
                    (short) 9);
            assertThat(r.responses().get(0).partitionResponses().get(0).errorCode()).isEqualTo(Errors.NONE.code());
        }
    }

    @Test
    void wrongPasswordIsAnsweredThenClosed() throws Exception {
        try (ProtocolClient c = sasl()) {
            c.call(new SaslHandshakeRequest().mechanism("PLAIN"), (short) 1);
            SaslAuthenticateResponse a = c.call(new SaslAuthenticateRequest().authBytes(plain("alice", "wrong")),
                    (short) 1);
            assertThat(a.errorCode()).isEqualTo(Errors.SASL_AUTHENTICATION_FAILED.code());
            assertThat(a.errorMessage()).contains("Invalid username or password").doesNotContain("wrong");
            assertThat(c.raw().closedByBroker()).isTrue();
        }
    }

    @Test
    void wrongRawTokenClosesTheConnection() throws Exception {
        try (ProtocolClient c = sasl()) {
            c.call(new SaslHandshakeRequest().mechanism("PLAIN"), (short) 0);
            c.raw().sendFrame(ByteBuffer.wrap(plain("nobody", "x")));
            assertThat(c.raw().closedByBroker()).isTrue();
        }
    }

    @Test
    void requestsBeforeAuthenticationCloseTheConnection() throws Exception {
        try (ProtocolClient c = sasl()) {
            c.send(new MetadataRequest().topics(List.of()), (short) 12);
            assertThat(c.raw().closedByBroker()).isTrue();
        }
        try (ProtocolClient c = sasl()) {
            c.call(new SaslHandshakeRequest().mechanism("PLAIN"), (short) 1);
            c.send(new MetadataRequest().topics(List.of()), (short) 12);
            assertThat(c.raw().closedByBroker()).isTrue();
        }
    }

    @Test
    void unknownMechanismIsAnsweredWithTheEnabledOnesThenClosed() throws Exception {
        try (ProtocolClient c = sasl()) {
            SaslHandshakeResponse h = c.call(new SaslHandshakeRequest().mechanism("GSSAPI"), (short) 1);
            assertThat(h.errorCode()).isEqualTo(Errors.UNSUPPORTED_SASL_MECHANISM.code());
            assertThat(h.mechanisms()).containsExactly("PLAIN");
            assertThat(c.raw().closedByBroker()).isTrue();
        }
    }

    @Test
    void saslRequestsOnAPlaintextListenerAreIllegalButHarmless() throws Exception {
        try (ProtocolClient c = new ProtocolClient(brook.bootstrapServers("PLAINTEXT"))) {
            SaslHandshakeResponse h = c.call(new SaslHandshakeRequest().mechanism("PLAIN"), (short) 1);
            assertThat(h.errorCode()).isEqualTo(Errors.ILLEGAL_SASL_STATE.code());
            SaslAuthenticateResponse a = c.call(new SaslAuthenticateRequest().authBytes(plain("a", "b")), (short) 2);
            assertThat(a.errorCode()).isEqualTo(Errors.ILLEGAL_SASL_STATE.code());
            assertThat(metadata(c).brokers().get(0).port()).as("the PLAINTEXT listener's own port")
                    .isEqualTo(brook.port());
        }
    }

    @Test
    void secondAuthenticationOnAnAuthenticatedConnectionIsIllegal() throws Exception {
        try (ProtocolClient c = sasl()) {
            c.call(new SaslHandshakeRequest().mechanism("PLAIN"), (short) 1);
            c.call(new SaslAuthenticateRequest().authBytes(plain("alice", "alice-secret")), (short) 2);
            SaslAuthenticateResponse again = c.call(new SaslAuthenticateRequest().authBytes(plain("admin",
                    "admin-secret")), (short) 2);
            assertThat(again.errorCode()).isEqualTo(Errors.ILLEGAL_SASL_STATE.code());
            assertThat(metadata(c).brokers()).hasSize(1);
        }
    }

    private static int port(String hostPort) {
        return Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1));
    }

}
