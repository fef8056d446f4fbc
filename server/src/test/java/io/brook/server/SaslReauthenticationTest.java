package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.testkit.Await;
import io.brook.testkit.MutableClock;
import io.brook.wire.message.MetadataRequest;
import io.brook.wire.message.MetadataResponse;
import io.brook.wire.message.SaslAuthenticateRequest;
import io.brook.wire.message.SaslAuthenticateResponse;
import io.brook.wire.message.SaslHandshakeRequest;
import io.brook.wire.message.SaslHandshakeResponse;
import io.brook.wire.protocol.ApiKey;
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
                .config("connection.failed.authentication.delay.ms", "5000")
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

    /**
     * Moves the clock past connection.failed.authentication.delay.ms until the answer comes (the
     * handler schedules it on the pool's time, so one move may come before the schedule).
     */
    private SaslAuthenticateResponse answerAfterTheDelay(ProtocolClient c, int id) throws Exception {
        SaslAuthenticateResponse[] got = new SaslAuthenticateResponse[1];
        c.raw().setReadTimeout(100);
        Await.until("the answer to the failed authentication", () -> {
            clock.advance(5_000);
            try {
                got[0] = c.receive(ApiKey.SASL_AUTHENTICATE, (short) 2, id);
                return true;
            } catch (java.net.SocketTimeoutException e) {
                return false;
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        c.raw().setReadTimeout(30_000);
        return got[0];
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
            clock.advance(1_000); // re-authentication comes a second after the last authentication at the soonest
            c.call(new SaslHandshakeRequest().mechanism("PLAIN"), (short) 1);
            int id = c.send(new SaslAuthenticateRequest().authBytes(plain("bob", "b")), (short) 2);
            SaslAuthenticateResponse a = answerAfterTheDelay(c, id);
            assertThat(a.errorCode()).isEqualTo(Errors.SASL_AUTHENTICATION_FAILED.code());
            assertThat(c.raw().closedByBroker()).isTrue();
        }
    }

    @Test
    void aFailedAuthenticationIsAnsweredAfterTheConfiguredDelay() throws Exception {
        try (ProtocolClient c = new ProtocolClient(brook.bootstrapServers("SASL_PLAINTEXT"))) {
            c.call(new SaslHandshakeRequest().mechanism("PLAIN"), (short) 1);
            int id = c.send(new SaslAuthenticateRequest().authBytes(plain("alice", "wrong")), (short) 2);
            c.raw().setReadTimeout(300);
            assertThatThrownBy(() -> c.receive(ApiKey.SASL_AUTHENTICATE, (short) 2, id))
                    .as("nothing before the delay passed on the broker's clock")
                    .isInstanceOf(java.net.SocketTimeoutException.class);
            SaslAuthenticateResponse a = answerAfterTheDelay(c, id);
            assertThat(a.errorCode()).isEqualTo(Errors.SASL_AUTHENTICATION_FAILED.code());
            assertThat(c.raw().closedByBroker()).isTrue();
        }
    }
}
