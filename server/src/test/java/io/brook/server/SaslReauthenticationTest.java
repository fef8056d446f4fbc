package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.testkit.MutableClock;
import io.brook.wire.message.MetadataRequest;
import io.brook.wire.message.MetadataResponse;
import io.brook.wire.message.SaslAuthenticateRequest;
import io.brook.wire.message.SaslAuthenticateResponse;
import io.brook.wire.message.SaslHandshakeRequest;
import io.brook.wire.message.SaslHandshakeResponse;
import io.brook.wire.protocol.Errors;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** KIP-368: connections.max.reauth.ms on a SASL listener, on a clock moved by hand. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SaslReauthenticationTest {

    private final MutableClock clock = new MutableClock(1_000_000L);
    private Brook brook;

    @BeforeEach
    void start() {
        brook = Brook.builder().clock(clock)
                .config("listeners", "SASL_PLAINTEXT://127.0.0.1:0")
                .config("sasl.enabled.mechanisms", "PLAIN")
                .config("connections.max.reauth.ms", "60000")
                .config("listener.name.sasl_plaintext.plain.sasl.jaas.config",
                        "org.apache.kafka.common.security.plain.PlainLoginModule required user_alice=\"a\" user_bob=\"b\";")
                .start();
    }

    @AfterEach
    void stop() {
        brook.close();
    }

    private static byte[] plain(String user, String password) {
        return ("\0" + user + "\0" + password).getBytes(StandardCharsets.UTF_8);
    }

    private ProtocolClient authenticated(String user, String password) throws Exception {
        ProtocolClient c = new ProtocolClient(brook.bootstrapServers("SASL_PLAINTEXT"));
        c.call(new SaslHandshakeRequest().mechanism("PLAIN"), (short) 1);
        SaslAuthenticateResponse a = c.call(new SaslAuthenticateRequest().authBytes(plain(user, password)), (short) 2);
        assertThat(a.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(a.sessionLifetimeMs()).isEqualTo(60_000L);
        return c;
    }

    private static MetadataResponse metadata(ProtocolClient c) throws Exception {
        return c.call(new MetadataRequest().topics(List.of()), (short) 12);
    }

    @Test
    void anExpiredAuthenticationClosesTheConnectionAtItsNextRequest() throws Exception {
        try (ProtocolClient c = authenticated("alice", "a")) {
            clock.advance(59_999);
            assertThat(metadata(c).brokers()).hasSize(1);
            clock.advance(1);
            c.send(new MetadataRequest().topics(List.of()), (short) 12);
            assertThat(c.raw().closedByBroker()).isTrue();
        }
    }

    @Test
    void reauthenticatingAsTheSameUserExtendsTheSession() throws Exception {
        try (ProtocolClient c = authenticated("alice", "a")) {
            clock.advance(50_000);
            SaslHandshakeResponse h = c.call(new SaslHandshakeRequest().mechanism("PLAIN"), (short) 1);
            assertThat(h.errorCode()).isEqualTo(Errors.NONE.code());
            SaslAuthenticateResponse a = c.call(new SaslAuthenticateRequest().authBytes(plain("alice", "a")), (short) 2);
            assertThat(a.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(a.sessionLifetimeMs()).isEqualTo(60_000L);
            clock.advance(50_000);
            assertThat(metadata(c).brokers()).as("100 s after the first authentication").hasSize(1);
        }
    }

    @Test
    void reauthenticatingAsAnotherUserFails() throws Exception {
        try (ProtocolClient c = authenticated("alice", "a")) {
            c.call(new SaslHandshakeRequest().mechanism("PLAIN"), (short) 1);
            SaslAuthenticateResponse a = c.call(new SaslAuthenticateRequest().authBytes(plain("bob", "b")), (short) 2);
            assertThat(a.errorCode()).isEqualTo(Errors.SASL_AUTHENTICATION_FAILED.code());
            assertThat(c.raw().closedByBroker()).isTrue();
        }
    }
}
