package io.brook.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.security.JwksTestTokens;
import io.brook.testkit.MutableClock;
import io.brook.wire.message.MetadataRequest;
import io.brook.wire.message.SaslAuthenticateRequest;
import io.brook.wire.message.SaslAuthenticateResponse;
import io.brook.wire.message.SaslHandshakeRequest;
import io.brook.wire.message.SaslHandshakeResponse;
import io.brook.wire.protocol.Errors;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * KIP-368 with OAUTHBEARER, on a clock moved by hand: the token's {@code exp} bounds the session
 * as in Kafka, also when {@code connections.max.reauth.ms} is 0; SaslAuthenticate tells the client
 * the lifetime; the connection closes at its first request after the expiry unless the client
 * re-authenticated with a fresh token, whose expiry sets the next bound.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OAuthBearerSessionLifetimeTest {

    private static final long START_S = 1_700_000_000L;

    @TempDir
    Path dir;

    private final MutableClock clock = new MutableClock(START_S * 1000);

    /** A broker validating unsecured tokens, with 5 s of clock skew, and connections.max.reauth.ms unset. */
    private Brook unsecured() {
        return Brook.builder().clock(clock)
                .config("listeners", "SASL_PLAINTEXT://127.0.0.1:0")
                .config("sasl.enabled.mechanisms", "OAUTHBEARER")
                .config("connection.failed.authentication.delay.ms", "0")
                .config("listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config",
                        "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required"
                                + " unsecuredValidatorAllowableClockSkewMs=\"5000\";")
                .start();
    }

    private static String unsignedToken(String sub, long expS) {
        Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
        return b64.encodeToString("{\"alg\":\"none\"}".getBytes(StandardCharsets.UTF_8)) + "."
                + b64.encodeToString(("{\"sub\":\"" + sub + "\",\"exp\":" + expS + "}").getBytes(StandardCharsets.UTF_8))
                + ".";
    }

    private static byte[] bearer(String token) {
        return ("n,,\u0001auth=Bearer " + token + "\u0001\u0001").getBytes(StandardCharsets.UTF_8);
    }

    private static long nowS(MutableClock clock) {
        return clock.millis() / 1000;
    }

    /** A SaslHandshake v1 for OAUTHBEARER, then SaslAuthenticate v2 with {@code token}. */
    private static SaslAuthenticateResponse login(ProtocolClient c, String token) throws Exception {
        SaslHandshakeResponse h = c.call(new SaslHandshakeRequest().mechanism("OAUTHBEARER"), (short) 1);
        assertThat(h.errorCode()).isEqualTo(Errors.NONE.code());
        return c.call(new SaslAuthenticateRequest().authBytes(bearer(token)), (short) 2);
    }

    private static void metadataAnswered(ProtocolClient c) throws Exception {
        c.call(new MetadataRequest().topics(List.of()), (short) 12);
    }

    /** Whether the broker closes the connection instead of answering a Metadata request. */
    private static boolean metadataClosesTheConnection(ProtocolClient c) throws Exception {
        c.send(new MetadataRequest().topics(List.of()), (short) 12);
        return c.raw().readFrameOrClose() == null;
    }

    @Test
    void withReauthOffTheTokensExpiryBoundsTheSession() throws Exception {
        try (Brook brook = unsecured(); ProtocolClient c = new ProtocolClient(brook.bootstrapServers("SASL_PLAINTEXT"))) {
            SaslAuthenticateResponse a = login(c, unsignedToken("alice", nowS(clock) + 30));
            assertThat(a.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(a.sessionLifetimeMs()).isEqualTo(30_000L);
            clock.advance(29_999);
            metadataAnswered(c);
            clock.advance(1);
            assertThat(metadataClosesTheConnection(c)).as("the first request at the token's expiry").isTrue();
        }
    }

    @Test
    void reauthenticatingWithAFreshTokenRenewsTheSessionUntilThatTokensExpiry() throws Exception {
        try (Brook brook = unsecured(); ProtocolClient c = new ProtocolClient(brook.bootstrapServers("SASL_PLAINTEXT"))) {
            assertThat(login(c, unsignedToken("alice", nowS(clock) + 30)).sessionLifetimeMs()).isEqualTo(30_000L);
            clock.advance(25_000);
            SaslAuthenticateResponse again = login(c, unsignedToken("alice", nowS(clock) + 60));
            assertThat(again.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(again.sessionLifetimeMs()).isEqualTo(60_000L);
            clock.advance(59_999);
            metadataAnswered(c);
            clock.advance(1);
            assertThat(metadataClosesTheConnection(c)).as("the first request at the second token's expiry").isTrue();
        }
    }

    @Test
    void reauthenticatingWithAnExpiredTokenFails() throws Exception {
        try (Brook brook = unsecured(); ProtocolClient c = new ProtocolClient(brook.bootstrapServers("SASL_PLAINTEXT"))) {
            login(c, unsignedToken("alice", nowS(clock) + 30));
            clock.advance(20_000);
            SaslAuthenticateResponse again = login(c, unsignedToken("alice", nowS(clock) - 60));
            assertThat(again.errorCode()).isEqualTo(Errors.SASL_AUTHENTICATION_FAILED.code());
            assertThat(again.errorMessage()).contains("expired");
            assertThat(c.raw().closedByBroker()).isTrue();
        }
    }

    @Test
    void aTokenPastItsExpiryWithinTheClockSkewGetsALifetimeOfZeroAndTheNextRequestCloses() throws Exception {
        try (Brook brook = unsecured(); ProtocolClient c = new ProtocolClient(brook.bootstrapServers("SASL_PLAINTEXT"))) {
            SaslAuthenticateResponse a = login(c, unsignedToken("alice", nowS(clock) - 2));
            assertThat(a.errorCode()).as("accepted within the 5 s of skew").isEqualTo(Errors.NONE.code());
            assertThat(a.sessionLifetimeMs()).isZero();
            assertThat(metadataClosesTheConnection(c)).isTrue();
        }
    }

    @Test
    void connectionsMaxReauthMsBoundsTheSessionWhenTheSignedTokenOutlivesIt() throws Exception {
        Path jwks = dir.resolve("jwks.json");
        Files.writeString(jwks, JwksTestTokens.jwks());
        try (Brook brook = Brook.builder().clock(clock)
                .config("listeners", "SASL_PLAINTEXT://127.0.0.1:0")
                .config("sasl.enabled.mechanisms", "OAUTHBEARER")
                .config("connections.max.reauth.ms", "10000")
                .config("listener.name.sasl_plaintext.oauthbearer.sasl.server.callback.handler.class",
                        "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler")
                .config("sasl.oauthbearer.jwks.endpoint.url", jwks.toUri().toString())
                .config("sasl.oauthbearer.expected.issuer", "https://issuer")
                .config("sasl.oauthbearer.expected.audience", "kafka")
                .start();
                ProtocolClient c = new ProtocolClient(brook.bootstrapServers("SASL_PLAINTEXT"))) {
            SaslAuthenticateResponse a = login(c, JwksTestTokens.rs256("alice", "https://issuer", "kafka",
                    nowS(clock) + 3600));
            assertThat(a.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(a.sessionLifetimeMs()).as("connections.max.reauth.ms, shorter than the token").isEqualTo(10_000L);
            clock.advance(9_000);
            SaslAuthenticateResponse again = login(c, JwksTestTokens.rs256("alice", "https://issuer", "kafka",
                    nowS(clock) + 4));
            assertThat(again.sessionLifetimeMs()).as("the token, shorter than connections.max.reauth.ms")
                    .isEqualTo(4_000L);
            clock.advance(3_999);
            metadataAnswered(c);
            clock.advance(1);
            assertThat(metadataClosesTheConnection(c)).isTrue();
        }
    }
}
