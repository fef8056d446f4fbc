package io.brook.server.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.server.config.Listener;
import io.brook.server.config.SecurityProtocol;
import io.brook.testkit.MutableClock;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A connection's SASL state on its own (the server tests drive it over the wire): which sessions
 * expire and may re-authenticate, and the session lifetime each SaslAuthenticate answer carries.
 */
class SessionTest {

    private static final long START_S = 1_700_000_000L;

    private final MutableClock clock = new MutableClock(START_S * 1000);

    private Session session(Map<String, String> settings) throws Exception {
        ScramCredentials scram = ScramCredentials.inMemory();
        scram.addIfAbsent("alice", ScramMechanism.SCRAM_SHA_512, "alice-secret", 4096);
        return ListenerSecurity.create(new Listener("SASL_PLAINTEXT", "127.0.0.1", 0), SecurityProtocol.SASL_PLAINTEXT,
                settings, scram, clock).newSession();
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] unsignedToken(String sub, long expS) {
        Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
        return utf8("n,,\u0001auth=Bearer " + b64.encodeToString(utf8("{\"alg\":\"none\"}")) + "."
                + b64.encodeToString(utf8("{\"sub\":\"" + sub + "\",\"exp\":" + expS + "}")) + ".\u0001\u0001");
    }

    /** A SCRAM-SHA-512 exchange as alice; asserts the lifetime of the intermediate and the final answer. */
    private static void scram(Session s, long expectedLifetimeMs) throws Exception {
        assertThat(s.handshake("SCRAM-SHA-512", (short) 1)).isEqualTo(Session.HandshakeResult.OK);
        String bare = "n=alice,r=cnonce123";
        String serverFirst = new String(s.authenticate(utf8("n,," + bare)), StandardCharsets.UTF_8);
        assertThat(s.sessionLifetimeMs()).as("while the exchange is under way").isZero();
        String nonce = serverFirst.split(",")[0].substring(2);
        s.authenticate(utf8(ScramNegotiationTest.clientFinal(bare, serverFirst, nonce, "alice-secret")));
        assertThat(s.sessionLifetimeMs()).as("once complete").isEqualTo(expectedLifetimeMs);
    }

    @Test
    void anIntermediateScramAnswerCarriesNoLifetimeAlsoWhenReauthenticating() throws Exception {
        Session s = session(Map.of("sasl.enabled.mechanisms", "SCRAM-SHA-512", "connections.max.reauth.ms", "60000"));
        scram(s, 60_000);
        clock.advance(50_000);
        scram(s, 60_000);
        clock.advance(59_999);
        assertThat(s.expired()).isFalse();
        clock.advance(1);
        assertThat(s.expired()).isTrue();
    }

    @Test
    void wrongCredentialsAreRefusedInKafkasWordsNamingTheMechanismAndTheReauthentication() throws Exception {
        Session s = session(Map.of("sasl.enabled.mechanisms", "SCRAM-SHA-512", "connections.max.reauth.ms", "60000"));
        assertThatThrownBy(() -> scramWith(s, "alice", "wrong")).isInstanceOf(AuthenticationFailure.class)
                .hasMessage("Authentication failed during authentication due to invalid credentials with SASL"
                        + " mechanism SCRAM-SHA-512");
        Session unknown = session(Map.of("sasl.enabled.mechanisms", "SCRAM-SHA-512"));
        assertThatThrownBy(() -> scramWith(unknown, "mallory", "alice-secret"))
                .hasMessage("Authentication failed during authentication due to invalid credentials with SASL"
                        + " mechanism SCRAM-SHA-512");
        Session again = session(Map.of("sasl.enabled.mechanisms", "SCRAM-SHA-512", "connections.max.reauth.ms", "60000"));
        scram(again, 60_000);
        clock.advance(30_000);
        assertThatThrownBy(() -> scramWith(again, "alice", "wrong"))
                .hasMessage("Authentication failed during re-authentication due to invalid credentials with SASL"
                        + " mechanism SCRAM-SHA-512");
    }

    private static void scramWith(Session s, String user, String password) throws Exception {
        assertThat(s.handshake("SCRAM-SHA-512", (short) 1)).isEqualTo(Session.HandshakeResult.OK);
        String bare = "n=" + user + ",r=cnonce123";
        String serverFirst = new String(s.authenticate(utf8("n,," + bare)), StandardCharsets.UTF_8);
        String nonce = serverFirst.split(",")[0].substring(2);
        s.authenticate(utf8(ScramNegotiationTest.clientFinal(bare, serverFirst, nonce, password)));
    }

    @Test
    void aMechanismsOwnReauthMsWinsOverTheListeners() throws Exception {
        Map<String, String> settings = Map.of("sasl.enabled.mechanisms", "SCRAM-SHA-512,OAUTHBEARER",
                "listener.name.sasl_plaintext.connections.max.reauth.ms", "60000",
                "listener.name.sasl_plaintext.scram-sha-512.connections.max.reauth.ms", "5000");
        scram(session(settings), 5_000);
        Session token = session(settings);
        assertThat(token.handshake("OAUTHBEARER", (short) 1)).isEqualTo(Session.HandshakeResult.OK);
        token.authenticate(unsignedToken("alice", START_S + 3600));
        assertThat(token.sessionLifetimeMs()).as("the listener's, shorter than the token").isEqualTo(60_000);
    }

    @Test
    void noReauthenticationWithinASecondOfTheLastAuthentication() throws Exception {
        Session s = session(Map.of("sasl.enabled.mechanisms", "SCRAM-SHA-512", "connections.max.reauth.ms", "60000"));
        scram(s, 60_000);
        clock.advance(999);
        assertThat(s.handshake("SCRAM-SHA-512", (short) 1)).isEqualTo(Session.HandshakeResult.ILLEGAL_STATE);
        clock.advance(1);
        scram(s, 60_000);
    }

    @Test
    void aPasswordSessionWithoutReauthMsNeverExpiresAndCannotReauthenticate() throws Exception {
        Session s = session(Map.of("sasl.enabled.mechanisms", "SCRAM-SHA-512"));
        scram(s, 0);
        clock.advance(365L * 24 * 3600 * 1000);
        assertThat(s.expired()).isFalse();
        assertThat(s.handshake("SCRAM-SHA-512", (short) 1)).isEqualTo(Session.HandshakeResult.ILLEGAL_STATE);
    }

    @Test
    void aTokenSessionWithoutReauthMsExpiresWithItsTokenAndMayReauthenticate() throws Exception {
        Session s = session(Map.of("sasl.enabled.mechanisms", "OAUTHBEARER"));
        assertThat(s.handshake("OAUTHBEARER", (short) 1)).isEqualTo(Session.HandshakeResult.OK);
        s.authenticate(unsignedToken("alice", START_S + 30));
        assertThat(s.sessionLifetimeMs()).isEqualTo(30_000);
        clock.advance(20_000);
        assertThat(s.handshake("OAUTHBEARER", (short) 1)).isEqualTo(Session.HandshakeResult.OK);
        s.authenticate(unsignedToken("alice", START_S + 120));
        assertThat(s.sessionLifetimeMs()).isEqualTo(100_000);
        clock.advance(99_999);
        assertThat(s.expired()).as("past the first token's expiry").isFalse();
        clock.advance(1);
        assertThat(s.expired()).isTrue();
    }

    @Test
    void aMalformedMessageEndsTheExchange() throws Exception {
        Session s = session(Map.of("sasl.enabled.mechanisms", "OAUTHBEARER"));
        assertThat(s.handshake("OAUTHBEARER", (short) 1)).isEqualTo(Session.HandshakeResult.OK);
        assertThatThrownBy(() -> s.authenticate(utf8("n,\u0001\u0001"))).isInstanceOf(AuthenticationFailure.class);
        assertThatThrownBy(() -> s.authenticate(unsignedToken("alice", START_S + 30)))
                .as("no second try on the same exchange").hasMessageContaining("Unexpected SASL message");
        assertThat(s.authenticated()).isFalse();
    }

    @Test
    void framesAreBoundedBySaslServerMaxReceiveSizeUntilTheClientAuthenticated() throws Exception {
        Session s = session(Map.of("sasl.enabled.mechanisms", "SCRAM-SHA-512"));
        assertThat(s.maxFrame(104_857_600)).as("Kafka's default").isEqualTo(524_288);
        assertThat(s.maxFrame(1000)).as("never above socket.request.max.bytes").isEqualTo(1000);
        scram(s, 0);
        assertThat(s.maxFrame(104_857_600)).isEqualTo(104_857_600);

        Session own = session(Map.of("sasl.enabled.mechanisms", "SCRAM-SHA-512",
                "listener.name.sasl_plaintext.sasl.server.max.receive.size", "4096"));
        assertThat(own.maxFrame(104_857_600)).as("the listener's own").isEqualTo(4096);
        assertThatThrownBy(() -> session(Map.of("sasl.enabled.mechanisms", "SCRAM-SHA-512",
                "sasl.server.max.receive.size", "0"))).hasMessageContaining("sasl.server.max.receive.size");
    }

    @Test
    void onlyKafkasOwnPrincipalBuilderIsAccepted() throws Exception {
        assertThat(session(Map.of("sasl.enabled.mechanisms", "SCRAM-SHA-512", "principal.builder.class",
                "org.apache.kafka.common.security.authenticator.DefaultKafkaPrincipalBuilder"))).isNotNull();
        assertThatThrownBy(() -> session(Map.of("sasl.enabled.mechanisms", "SCRAM-SHA-512",
                "listener.name.sasl_plaintext.principal.builder.class", "com.example.MyPrincipalBuilder")))
                .hasMessageContaining("listener.name.sasl_plaintext.principal.builder.class")
                .hasMessageContaining("com.example.MyPrincipalBuilder");
    }
}
